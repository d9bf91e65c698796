"""The package layout and the dependency rules of ARCHITECTURE.md §1, checked from the source.

Imports are read with ``ast`` (nothing is imported), so a rule is broken as soon as
the import is written, even inside a function or an ``if TYPE_CHECKING`` block:
type-only imports still couple the layers.

Layers and what each may import from the project:

- core (``derivative/*.py`` except the top layer): only the core;
- ``grammar``: the core;
- ``solver``: the core and ``certificates`` (its model and printer);
- ``certificates``: the core and ``grammar`` (it re-parses), never ``solver``;
- ``forge``: everything except the top layer;
- top (``api``, ``cli``, ``__main__``, ``_schema``, and the CLI's command modules
  ``_cli_*``): everything;
- the sandbox worker (``forge/**/_worker*.py``, ``forge/**/worker*.py`` or any module
  marked ``# derivative: stdlib-only``): the standard library only.

``from derivative import X`` counts as an import of the public API (the top layer),
unless ``X`` is a submodule, because the package re-exports ``api`` lazily.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "derivative"
LAYERS = ("grammar", "solver", "certificates", "forge")
TOP_MODULES = frozenset({"api", "cli", "__main__", "_schema"})
STDLIB_MARKER = "# derivative: stdlib-only"

ALLOWED: dict[str, frozenset[str]] = {
    "core": frozenset({"package", "core"}),
    "grammar": frozenset({"package", "core", "grammar"}),
    "solver": frozenset({"package", "core", "certificates", "solver"}),
    "certificates": frozenset({"package", "core", "grammar", "certificates"}),
    "forge": frozenset({"package", "core", "grammar", "solver", "certificates", "forge"}),
    "top": frozenset({"package", "core", "top", *LAYERS}),
}

# Modules allowed to print or exit: the CLI (with its command modules ``_cli_*``), and the
# developer script that writes schemas.
MAY_PRINT_OR_EXIT = frozenset({"derivative.cli", "derivative.__main__", "derivative._schema"})


def is_top(name: str) -> bool:
    """Whether a core-level module name belongs to the top layer (API and CLI)."""
    return name in TOP_MODULES or name.startswith("_cli_")


# --------------------------------------------------------------------------- discovery


def _module_name(path: Path, root: Path, prefix: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([prefix, *parts])


def project_modules() -> list[tuple[str, Path]]:
    """Every Python module of the package, named as it imports (layers via their symlinks)."""
    found: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(PKG, followlinks=False):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for f in filenames:
            if f.endswith(".py"):
                found.append(
                    (_module_name(Path(dirpath) / f, PKG, "derivative"), Path(dirpath) / f)
                )
    for layer in LAYERS:
        top = ROOT / layer
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for f in filenames:
                if f.endswith(".py"):
                    path = Path(dirpath) / f
                    found.append((_module_name(path, top, f"derivative.{layer}"), path))
    return sorted(found)


def core_module_names() -> frozenset[str]:
    """Names of the core's modules and subpackages (``_ast``, ``_eval`` ...)."""
    modules = {p.stem for p in PKG.glob("*.py")}
    packages = {
        p.name for p in PKG.iterdir() if (p / "__init__.py").is_file() and not p.is_symlink()
    }
    return frozenset(m for m in modules | packages if not is_top(m) and m != "__init__")


def layer_of_module(module: str) -> str:
    """The layer a project module belongs to."""
    parts = module.split(".")
    if len(parts) == 1:
        return "top"  # the package re-exports the public API (api.py) lazily
    if parts[1] in LAYERS:
        return parts[1]
    if is_top(parts[1]):
        return "top"
    return "core"


def is_worker(module: str, path: Path) -> bool:
    if module.startswith("derivative.forge.") and path.name.startswith(("_worker", "worker")):
        return True
    return STDLIB_MARKER in path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- imports


def imported_modules(source: str, module: str, is_package: bool) -> set[str]:
    """Absolute names of every module ``source`` imports (relative imports resolved)."""
    package = module if is_package else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            out.add(target)
            out.update(f"{target}.{alias.name}" for alias in node.names)
    return out


def classify(name: str, core_modules: frozenset[str]) -> str | None:
    """The layer an imported name belongs to, or None when it is outside the project."""
    parts = name.split(".")
    if parts[0] != "derivative":
        return None
    if len(parts) == 1:
        return "package"
    head = parts[1]
    if head in LAYERS:
        return head
    if is_top(head):
        return "top"
    if head in core_modules:
        return "core"
    return "top"  # `from derivative import load`: the public API, which is api.py


def violations(
    source: str, module: str, is_package: bool, core_modules: frozenset[str]
) -> list[str]:
    """Imports of ``source`` that its layer may not make."""
    allowed = ALLOWED[layer_of_module(module)]
    bad = []
    for name in sorted(imported_modules(source, module, is_package)):
        kind = classify(name, core_modules)
        if kind is not None and kind not in allowed:
            bad.append(f"{name} ({kind})")
    return bad


def non_stdlib_imports(source: str) -> list[str]:
    """Imports that are not from the standard library (relative ones included)."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if name.startswith(".") or (top not in sys.stdlib_module_names and top != "__future__"):
                bad.append(name)
    return bad


def prints_or_exits(source: str) -> list[str]:
    """Calls that print or end the process (``print``, ``sys.exit``, ``exit``, ``os._exit``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in {"print", "exit", "quit"}:
                found.append(f"{f.id}() at line {node.lineno}")
            elif (
                isinstance(f, ast.Attribute)
                and isinstance(f.value, ast.Name)
                and (f.value.id, f.attr) in {("sys", "exit"), ("os", "_exit")}
            ):
                found.append(f"{f.value.id}.{f.attr}() at line {node.lineno}")
        elif (
            isinstance(node, ast.Raise)
            and node.exc is not None
            and "SystemExit" in ast.unparse(node.exc)
        ):
            found.append(f"raise SystemExit at line {node.lineno}")
    return found


MODULES = project_modules()
CORE = core_module_names()
WORKERS = [(m, p) for m, p in MODULES if is_worker(m, p)]


# --------------------------------------------------------------------------- the rules


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_module_respects_layer_rules(module: str, path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    bad = violations(source, module, path.name == "__init__.py", CORE)
    assert not bad, f"{path.relative_to(ROOT)} ({layer_of_module(module)}) imports {bad}"


def test_sandbox_worker_is_stdlib_only() -> None:
    # One test over every worker module (there may be none yet); the check itself is
    # shown to catch violations by test_stdlib_check_catches_project_and_third_party_imports.
    bad = {
        str(path.relative_to(ROOT)): found
        for _, path in WORKERS
        if (found := non_stdlib_imports(path.read_text(encoding="utf-8")))
    }
    assert not bad, f"modules that run inside the sandbox import more than the stdlib: {bad}"


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_only_the_cli_prints_or_exits(module: str, path: Path) -> None:
    if (
        module in MAY_PRINT_OR_EXIT
        or module.startswith("derivative._cli_")
        or (module, path) in WORKERS
    ):
        return
    found = prints_or_exits(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)}: only the CLI prints and exits; found {found}"


def test_the_layout_has_the_modules_it_is_about() -> None:
    names = {m for m, _ in MODULES}
    assert {"derivative", "derivative.api", "derivative.cli", "derivative._ast"} <= names
    for layer in LAYERS:
        assert f"derivative.{layer}" in names, f"no {layer}/__init__.py found"
    assert "api" not in CORE and "_ast" in CORE


# --------------------------------------------------------------------------- the checker itself


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("derivative._eval", "from derivative.solver import encode", ["derivative.solver"]),
        ("derivative._eval", "import derivative.api", ["derivative.api"]),
        ("derivative._eval", "from derivative import load", ["derivative.load"]),
        ("derivative._eval", "from derivative import cli", ["derivative.cli"]),
        ("derivative._eval", "from derivative._cli_sandbox import run", ["derivative._cli_"]),
        ("derivative.grammar.parser", "from ..solver import x", ["derivative.solver"]),
        ("derivative.grammar.parser", "from derivative.certificates import m", ["derivative.cert"]),
        ("derivative.solver.core", "from derivative.forge.build import run", ["derivative.forge"]),
        ("derivative.solver.core", "from derivative.grammar import load", ["derivative.grammar"]),
        ("derivative.certificates.check", "import derivative.solver.z3enc", ["derivative.solver"]),
        ("derivative.forge.pipeline", "from derivative.api import load", ["derivative.api"]),
        ("derivative.forge", "from . import api", []),
    ],
)
def test_checker_catches_forbidden_imports(module: str, source: str, expected: list[str]) -> None:
    bad = violations(source, module, module.count(".") == 1, CORE)
    for prefix in expected:
        assert any(b.startswith(prefix) for b in bad), (source, bad)
    if not expected:
        assert bad == []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("derivative._eval", "from derivative._ast import Call\nimport derivative._values"),
        ("derivative.grammar.parser", "from derivative._errors import SpecError\nimport lark"),
        ("derivative.grammar.parser", "from .transform import T"),
        ("derivative.solver.core", "from derivative.certificates.model import Certificate"),
        ("derivative.certificates.check", "from derivative.grammar import parse_text"),
        ("derivative.forge.pipeline", "from derivative.solver import check"),
        ("derivative.api", "from derivative.forge import build"),
    ],
)
def test_checker_allows_permitted_imports(module: str, source: str) -> None:
    assert violations(source, module, False, CORE) == []


def test_stdlib_check_catches_project_and_third_party_imports() -> None:
    assert non_stdlib_imports("import json, struct\nfrom os import path") == []
    assert non_stdlib_imports("import derivative._values") == ["derivative._values"]
    assert non_stdlib_imports("from . import frames") == ["."]
    assert non_stdlib_imports("import pydantic") == ["pydantic"]


def test_print_check_catches_prints_and_exits() -> None:
    source = "import sys, os\nprint(1)\nsys.exit(2)\nos._exit(3)\nraise SystemExit(4)\n"
    assert len(prints_or_exits(source)) == 4
    assert prints_or_exits("def f(out):\n    out.write('x')\n") == []


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
