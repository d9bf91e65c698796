"""A contract's exceptions are matched by identity, never by name (docs/language.md §8.3).

``raises ValueError when x < 0`` asks for what a caller's ``except ValueError`` catches: the
built-in class or a subclass of it.  A candidate's own ``class ValueError(Exception)`` is not
that, whatever it claims: its ``__module__`` set to ``builtins``, a metaclass answering
``__mro__`` and ``__name__`` with the built-in's.  A declared exception (``exception
InsufficientFunds(ValueError)``) means the candidate's own class of that name (defined in
the candidate's code), or the class where the spec ``bind``s it: a standard-library class
that merely shares the name is not it.

Every variant runs the same way on every path that judges: behind the process sandbox
(the worker decides identity against the built-ins it pinned before the import), behind
Docker, in-process (``derivative tests``) and in a written pytest module (the runtime the
module carries).  Each failing variant fails against a judge that matches names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from derivative.api import load
from derivative.cli import main
from derivative.forge.codegen import generate_module

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
BUILTIN_SPEC = CORPUS / "lookalike_builtin_exception" / "spec.req"
HOSTILE = ROOT / "tests" / "hostile" / "lookalike_exception.py"

DECLARED_SPEC = """\
spec bank version 1
exception InsufficientFunds(ValueError)
function f(x: int) -> int
    raises InsufficientFunds when x < 0
    ensures: result == x + 1
"""

STDLIB_NAMED_SPEC = """\
spec stats version 1
exception StatisticsError(ValueError)
function f(x: int) -> int
    raises StatisticsError when x < 0
    ensures: result == x + 1
"""

BODY = """

def f(x: int) -> int:
    if x < 0:
        raise {cls}(f"{{x}} is negative")
    return x + 1
"""

BUILTIN_VARIANTS: dict[str, tuple[str, str]] = {
    "lookalike": ((CORPUS / "lookalike_builtin_exception" / "wrong.py").read_text("utf-8"),
                  "failed"),
    "hostile": (HOSTILE.read_text("utf-8"), "failed"),
    "module_builtins": ('class ValueError(Exception):\n    __module__ = "builtins"\n'
                        + BODY.format(cls="ValueError"), "failed"),
    "metaclass_fake": (
        "_REAL = ValueError\n\n\nclass _Disguise(type):\n"
        "    __mro__ = property(lambda cls: (cls, _REAL, Exception, BaseException, object))\n"
        '    __name__ = property(lambda cls: "ValueError")\n\n\n'
        "class Negative(Exception, metaclass=_Disguise):\n    pass\n"
        + BODY.format(cls="Negative"), "failed"),
    "subclass": ("class Negative(ValueError):\n    pass\n" + BODY.format(cls="Negative"),
                 "passed"),
    # A metaclass whose mro() puts the built-in into the class's real MRO: Python's own
    # `except ValueError` catches it (issubclass says yes), so the contract is met.
    "metaclass_real_mro": (
        "class _Claims(type):\n    def mro(cls):\n"
        "        return [cls, ValueError, Exception, BaseException, object]\n\n\n"
        "class Negative(Exception, metaclass=_Claims):\n    pass\n"
        + BODY.format(cls="Negative"), "passed"),
}

DECLARED_VARIANTS: dict[str, tuple[str, str, str]] = {
    "own_class": (DECLARED_SPEC, "class InsufficientFunds(ValueError):\n    pass\n"
                  + BODY.format(cls="InsufficientFunds"), "passed"),
    "builtin_instead": (DECLARED_SPEC, "class InsufficientFunds(ValueError):\n    pass\n"
                        + BODY.format(cls="ValueError"), "failed"),
    "stdlib_same_name": (STDLIB_NAMED_SPEC, "from statistics import StatisticsError\n"
                         + BODY.format(cls="StatisticsError"), "failed"),
    "stdlib_bound": (STDLIB_NAMED_SPEC + 'bind StatisticsError to "statistics:StatisticsError"\n',
                     "from statistics import StatisticsError\n"
                     + BODY.format(cls="StatisticsError"), "passed"),
}

PACKAGE_INIT = "from identity_bank.errors import InsufficientFunds\n" + BODY.format(
    cls="InsufficientFunds")
PACKAGE_ERRORS = "class InsufficientFunds(ValueError):\n    pass\n"


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _judge(capsys: pytest.CaptureFixture[str], mode: str, spec: Path, candidate: Path,
           module: str | None = None) -> tuple[int, dict[str, object]]:
    """``derivative run`` (mode ``process``/``docker``) or ``derivative tests``
    (``in_process``), as the JSON document and the exit code."""
    extra = ["--module", module] if module else []
    if mode == "in_process":
        argv = ["tests", str(spec), "--target", str(candidate), *extra, "--examples", "20",
                "--json"]
    else:
        # permissive: the identity rule is the oracle's; under default the posture refuses
        # the disguises (a metaclass, __module__, __qualname__) before anything runs, which
        # test_the_default_policy_refuses_the_disguises checks
        argv = ["run", str(spec), "--candidate", str(candidate), *extra, "--sandbox", mode,
                "--examples", "20", "--json", "--policy", "permissive"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, json.loads(out)


def _raises_obligation(doc: dict[str, object]) -> dict[str, object]:
    obligations = doc["obligations"]
    assert isinstance(obligations, list)
    (found,) = [o for o in obligations if ".raises." in str(o["id"])]
    assert isinstance(found, dict)
    return found


def _check(code: int, doc: dict[str, object], expected: str) -> dict[str, object]:
    assert doc["status"] == expected, doc["reason"]
    assert code == (0 if expected == "passed" else 1)
    raises = _raises_obligation(doc)
    assert raises["status"] == expected, raises
    return raises


MODES = ("process", "in_process")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("variant", sorted(BUILTIN_VARIANTS))
def test_a_builtin_exception_means_the_builtin_class(
    variant: str, mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, expected = BUILTIN_VARIANTS[variant]
    candidate = _write(tmp_path / variant, f"identity_{variant}.py", source)
    raises = _check(*_judge(capsys, mode, BUILTIN_SPEC, candidate), expected)
    if expected == "failed":
        counterexample = raises["counterexample"]
        assert isinstance(counterexample, dict)
        assert counterexample["input"]["x"] < 0  # type: ignore[index]
        if variant in ("lookalike", "hostile", "module_builtins"):
            # the reader sees that this ValueError is not the built-in one
            assert "not the built-in" in str(counterexample["got"]), counterexample


@pytest.mark.parametrize("variant", ["hostile", "module_builtins", "metaclass_fake",
                                     "metaclass_real_mro"])
def test_the_default_policy_refuses_the_disguises(
    variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, _ = BUILTIN_VARIANTS[variant]
    candidate = _write(tmp_path / variant, f"identity_{variant}.py", source)
    code = main(["run", str(BUILTIN_SPEC), "--candidate", str(candidate), "--sandbox",
                 "process", "--json"])
    doc = json.loads(capsys.readouterr()[0])
    assert (code, doc["status"]) == (5, "sandbox_policy_violation"), doc["reason"]


@pytest.mark.parametrize("variant", ["hostile", "module_builtins", "subclass"])
def test_a_builtin_exception_means_the_builtin_class_on_docker(
    variant: str, docker_launcher: object, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source, expected = BUILTIN_VARIANTS[variant]
    candidate = _write(tmp_path / variant, f"identity_{variant}.py", source)
    _check(*_judge(capsys, "docker", BUILTIN_SPEC, candidate), expected)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("variant", sorted(DECLARED_VARIANTS))
def test_a_declared_exception_means_the_candidates_own_class(
    variant: str, mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec_text, source, expected = DECLARED_VARIANTS[variant]
    spec = _write(tmp_path, "spec.req", spec_text)
    candidate = _write(tmp_path / variant, f"identity_{variant}.py", source)
    _check(*_judge(capsys, mode, spec, candidate), expected)


@pytest.mark.parametrize("mode", MODES)
def test_a_declared_exception_may_live_in_another_module_of_the_candidates_package(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path, "spec.req", DECLARED_SPEC)
    package = tmp_path / "src" / "identity_bank"
    _write(package, "__init__.py", PACKAGE_INIT)
    _write(package, "errors.py", PACKAGE_ERRORS)
    if mode == "in_process":
        code, doc = _judge(capsys, mode, spec, tmp_path / "src", module="identity_bank")
    else:
        code, doc = _judge(capsys, mode, spec, package)
    _check(code, doc, "passed")


def test_a_same_named_class_from_outside_the_candidate_is_not_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-process only (a sandbox has nothing outside the candidate but the standard
    library): ``InsufficientFunds`` imported from a module outside the candidate's folder
    does not satisfy the declared exception; bound there by the spec, it does."""
    library = tmp_path / "lib"
    _write(library, "identity_elsewhere.py", PACKAGE_ERRORS)
    monkeypatch.syspath_prepend(str(library))
    candidate = _write(tmp_path / "cand", "identity_imports.py",
                       "from identity_elsewhere import InsufficientFunds\n"
                       + BODY.format(cls="InsufficientFunds"))
    spec = _write(tmp_path, "spec.req", DECLARED_SPEC)
    _check(*_judge(capsys, "in_process", spec, candidate), "failed")
    bound = _write(tmp_path, "bound.req", DECLARED_SPEC
                   + 'bind InsufficientFunds to "identity_elsewhere:InsufficientFunds"\n')
    _check(*_judge(capsys, "in_process", bound, candidate), "passed")


# --------------------------------------------------------------------------- written modules


def _pytest_module(folder: Path, spec: Path, impl: str) -> subprocess.CompletedProcess[str]:
    """The written module for ``spec`` run by pytest against ``impl``, without derivative."""
    module = generate_module(load([spec]).types, "impl.py", examples=15, steps=8)
    _write(folder, "test_generated.py", module)
    _write(folder, "impl.py", impl)
    _write(folder, "conftest.py", "import sys\nsys.modules['derivative'] = None\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DERIVATIVE_TARGET")}
    # The written module needs nothing of derivative, its pytest plugin included.
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:derivative",
         "--rootdir", str(folder)], cwd=folder, capture_output=True, text=True, env=env,
        timeout=600,
    )


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["hostile", "module_builtins", "metaclass_fake", "subclass",
                                     "metaclass_real_mro"])
def test_a_written_module_applies_the_same_rule(variant: str, tmp_path: Path) -> None:
    source, expected = BUILTIN_VARIANTS[variant]
    ran = _pytest_module(tmp_path, BUILTIN_SPEC, source)
    assert ran.returncode == (0 if expected == "passed" else 1), ran.stdout[-3000:]
    if expected == "failed":
        assert "test_f__raises__ValueError FAILED" in ran.stdout or \
            "FAILED test_generated.py::test_f__raises__ValueError" in ran.stdout, ran.stdout


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["own_class", "stdlib_same_name", "stdlib_bound"])
def test_a_written_module_applies_the_same_rule_to_declared_exceptions(
    variant: str, tmp_path: Path
) -> None:
    spec_text, source, expected = DECLARED_VARIANTS[variant]
    spec = _write(tmp_path / "spec", "spec.req", spec_text)
    ran = _pytest_module(tmp_path / "project", spec, source)
    assert ran.returncode == (0 if expected == "passed" else 1), ran.stdout[-3000:]
