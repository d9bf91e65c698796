"""The package layout and the dependency rules of ``docs/layers.toml``, checked from the source.

The rules live in one file, ``docs/layers.toml``; ``tests/layering.py`` reads it and these
tests apply it to every module. Imports are read with ``ast`` (nothing is imported), so a
rule is broken as soon as the import is written, even inside a function, an
``if TYPE_CHECKING`` block or as a literal name passed to ``importlib.import_module``.
The tables of ``docs/architecture.md`` are rendered from the same file and compared here;
``DERIVATIVE_REGEN_GOLDEN=1`` rewrites them.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "derivative"


def _load_layering() -> ModuleType:
    spec = importlib.util.spec_from_file_location("layering", ROOT / "tests" / "layering.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["layering"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


L = _load_layering()
RULES = L.load_rules(ROOT)
MODULES = L.read_project(ROOT)
KNOWN = set(MODULES)
LAYERS = L.LAYERS
REGEN = os.environ.get("DERIVATIVE_REGEN_GOLDEN", "").strip() not in ("", "0")


def _fake(name: str, source: str, *, package: bool = False) -> list[str]:
    known = KNOWN | {"derivative.forge.build", "derivative.forge.build._gates"}
    return L.violations(RULES, L.module_from_source(name, source, known, is_package=package))


# --------------------------------------------------------------------------- the rules


def test_the_rules_file_does_not_contradict_itself() -> None:
    assert L.rule_errors(RULES) == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_respects_the_rules(name: str) -> None:
    mod = MODULES[name]
    assert RULES.room_of(name) in RULES.rooms, f"{name} belongs to no room of docs/layers.toml"
    bad = L.violations(RULES, mod)
    assert not bad, f"{mod.path.relative_to(ROOT)} ({RULES.room_of(name)}): {bad}"


def test_code_inside_the_sandbox_is_stdlib_only() -> None:
    inside = [m for n, m in MODULES.items() if RULES.is_stdlib_only(n)]
    assert len(inside) >= 2, "the worker and the explorer are stdlib-only"
    bad = {str(m.path.relative_to(ROOT)): f for m in inside if (f := L.non_stdlib_imports(m))}
    assert not bad, f"modules that run inside the sandbox import more than the stdlib: {bad}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_the_cli_prints_or_exits(name: str) -> None:
    if RULES.may_print(name) or RULES.is_stdlib_only(name):
        return
    found = L.prints_or_exits(MODULES[name].tree)
    where = MODULES[name].path.relative_to(ROOT)
    assert not found, f"{where}: only the CLI prints and exits; {found}"


def test_every_room_has_its_modules() -> None:
    planned = {"forge.build"}  # filled by the build pipeline
    rooms = {RULES.room_of(n) for n in MODULES}
    missing = set(RULES.rooms) - rooms - planned
    assert not missing, f"rooms with no module: {sorted(missing)}"
    for layer in LAYERS:
        assert f"derivative.{layer}" in MODULES, f"no {layer}/__init__.py found"


def test_the_docs_show_the_rules_and_the_graph() -> None:
    path = ROOT / L.DOCS_FILE
    current = path.read_text(encoding="utf-8")
    expected = L.render_docs(current, RULES, MODULES)
    if REGEN:
        path.write_text(expected, encoding="utf-8")
    assert current == expected or REGEN, (
        "docs/architecture.md is out of date: run `python tests/layering.py docs` "
        "(or the suite with DERIVATIVE_REGEN_GOLDEN=1) and review the diff"
    )


def test_the_rules_exist_in_one_place_only() -> None:
    # the arrows are stated in docs/layers.toml; no other file restates them as a table
    for path in [ROOT / "docs" / "architecture.md", ROOT / "tests" / "README.md"]:
        text = path.read_text(encoding="utf-8")
        assert "may import from the project" not in text, path


# --------------------------------------------------------------------------- the checker itself


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("derivative._eval", "from derivative.solver import encode", "never"),
        ("derivative._eval", "import derivative.api", "never"),
        ("derivative._eval", "from derivative import load", "never"),
        ("derivative._eval", "def f():\n    from derivative import cli", "never"),
        ("derivative._eval", "if TYPE_CHECKING:\n    import derivative.forge.run", "never"),
        ("derivative.grammar._parser", "from ..solver import x", "may not"),
        ("derivative.grammar._parser", "from derivative.certificates import m", "may not"),
        ("derivative.solver._check", "from derivative.forge.build import run", "never"),
        ("derivative.solver._check", "from derivative.grammar import load", "may not"),
        ("derivative.certificates._verify", "import derivative.solver._encode", "never"),
        ("derivative.forge.testing._engine", "from ..sandbox import open_sandbox", "never"),
        ("derivative.forge.sandbox._sandbox", "from ..testing import Engine", "never"),
        ("derivative.forge.run._pipeline", "from ..sandbox._channel import X", "face"),
        ("derivative.forge.run._pipeline", "from derivative.solver._encode import X", "face"),
        ("derivative.forge.inside._worker", "from derivative._values import X", "never"),
        ("derivative.api", "from derivative.cli import main", "never"),
        ("derivative._eval", "import importlib\nimportlib.import_module('derivative.solver')",
         "never"),
    ],
)
def test_checker_catches_forbidden_imports(module: str, source: str, expected: str) -> None:
    bad = _fake(module, source)
    assert bad and all(expected in b for b in bad), (source, bad)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("derivative._eval", "from derivative._ast import Call\nimport derivative._values"),
        ("derivative.grammar._parser", "from derivative._errors import SpecError\nimport lark"),
        ("derivative.grammar._parser", "from ._transform import T"),
        ("derivative.solver._check", "from derivative.certificates import Certificate"),
        ("derivative.certificates._verify", "from derivative.grammar import parse_text"),
        ("derivative.forge.run._pipeline", "from derivative.solver import check"),
        ("derivative.forge.run._pipeline", "from ..sandbox import open_sandbox"),
        ("derivative.forge.build._gates", "from ..run import run_candidate"),
        ("derivative.api", "from derivative.forge.run import run_candidate"),
    ],
)
def test_checker_allows_permitted_imports(module: str, source: str) -> None:
    assert _fake(module, source) == []


def test_stdlib_check_catches_project_and_third_party_imports() -> None:
    def scan(source: str) -> list[str]:
        return L.non_stdlib_imports(L.module_from_source("m", source, KNOWN))

    assert scan("import json, struct\nfrom os import path") == []
    assert scan("import derivative._values") == ["line 1: derivative._values"]
    assert scan("from . import frames") == ["line 1: ."]
    assert scan("import pydantic") == ["line 1: pydantic"]


def test_print_check_catches_prints_and_exits() -> None:
    import ast

    source = "import sys, os\nprint(1)\nsys.exit(2)\nos._exit(3)\nraise SystemExit(4)\n"
    assert len(L.prints_or_exits(ast.parse(source))) == 4
    assert L.prints_or_exits(ast.parse("def f(out):\n    out.write('x')\n")) == []


# --------------------------------------------------------------------------- symlinks and laziness


@pytest.mark.parametrize("layer", LAYERS)
def test_layers_are_relative_symlinks(layer: str) -> None:
    link = PKG / layer
    assert link.is_symlink(), f"derivative/{layer} must be a symbolic link to ../{layer}"
    target = os.readlink(link)
    assert not os.path.isabs(target), f"derivative/{layer} -> {target} is absolute"
    assert target.rstrip("/") == f"../{layer}"
    assert link.resolve() == (ROOT / layer).resolve()


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


def test_importing_the_package_or_the_grammar_loads_no_other_layer() -> None:
    loaded = _loaded_after("import derivative, derivative.grammar")
    heavy = {"z3", "cvc5", "hypothesis", "docker", "derivative.api", "derivative.cli"}
    heavy |= {f"derivative.{layer}" for layer in ("solver", "certificates", "forge")}
    assert not (loaded & heavy), sorted(loaded & heavy)
    assert "derivative.grammar" in loaded


def test_public_names_are_declared_and_lazy() -> None:
    import derivative

    assert set(derivative.__all__) == set(derivative._EXPORTS) | {"__version__"}
    loaded = _loaded_after("import derivative")
    assert "derivative.api" not in loaded and "derivative._ast" not in loaded


# --------------------------------------------------------------------------- suite configuration


def test_hypothesis_profiles_follow_the_ci_variable() -> None:
    from hypothesis import HealthCheck, settings

    ci = settings.get_profile("ci")
    assert ci.derandomize is True and ci.deadline is None and ci.print_blob is True
    assert ci.max_examples <= 100
    dev = settings.get_profile("dev")
    assert dev.derandomize is False
    # no profile lets the machine's speed decide an outcome
    for profile in (ci, dev):
        assert profile.deadline is None
        assert HealthCheck.too_slow in profile.suppress_health_check
    ci_env = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes", "on"}
    expected = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if ci_env else "dev")
    assert settings.default == settings.get_profile(expected)
