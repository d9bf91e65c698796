"""One error root: every exception class of the package is a ``DerivativeError`` unless it is
internal control flow, listed below with the reason it never reaches a user.

The package is walked module by module (the layers through their symbolic links), except the
stdlib-only code that runs inside the sandbox (``forge/inside``), which must not import the
project and so cannot share its root.  A new exception class therefore either joins the root
(and gets an exit code and a rendering from the CLI) or is added here with its reason.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import time
from pathlib import Path
from typing import Any

import pytest

import derivative
from derivative._errors import (
    EXIT_LABELS,
    STATUS_EXIT_CODES,
    DerivativeError,
    ExitCode,
    InternalError,
    SandboxUnavailable,
    exit_code_for,
)

ROOT = Path(__file__).resolve().parents[2]
STDLIB_MARKER = "# derivative: stdlib-only"

INTERNAL: dict[str, str] = {
    "derivative.grammar._tables.TableShapeError": "caught in grammar/_parser._tables, which "
    "then keeps Lark's own callbacks: no user sees it",
    "derivative.forge.run._coverage.CoverageForged":
        "caught where the coverage answer is read: the session is tainted, the run says so",
    "derivative.cli._parser.Exit": "control flow: argparse ended on purpose (--help, "
    "--version); main returns its status",
    "derivative.forge.sandbox._process._RetryPlain": "control flow: the process launcher "
    "retries without user namespaces and catches it itself",
    "derivative.forge.testing._engine._Failed": "an AssertionError Hypothesis must see as a "
    "failing example to shrink it; the engine records it as a counterexample",
    "derivative.forge.testing._tracker._StatefulFailure": "the same for stateful runs: a "
    "failing call sequence, recorded as a counterexample",
    "derivative.forge.testing._callers.Undefined": "control flow inside the engine: the "
    "candidate lacks a function, class or method; the engine stops that owner's run and "
    "records its obligations as not judged, with the sentence",
    "derivative.forge.testing._pytest_plugin.ObligationFailed": "a failed obligation item in "
    "pytest (the plugin): pytest reports it, it never reaches the CLI",
    "derivative.grammar._lexer.LexError": "raised while tokenizing, before the file is known; "
    "the parser turns it into a SpecError with the place",
    "derivative.grammar._literals.LiteralError": "a bad literal; the transformer turns it "
    "into a LexError, and so into a SpecError",
    "derivative.grammar._parser.ParseFailure": "the LALR driver's failure; the parser turns it "
    "into a SpecError with the expected tokens",
    "derivative.forge.build._package._Refused": "control flow inside verify_package: a "
    "package too broken to look into; verify_package returns a rejection with the reason",
    "derivative.forge.build._synth_expr.Refuse": "control flow inside --synth: an expression "
    "it cannot write; synthesize collects them into one SynthesisRefused",
    "derivative.forge.codegen._runtime.Undefined": "runs inside a generated test module (no "
    "derivative there): an undefined contract expression, reported by pytest",
    "derivative.forge.codegen._runtime.WrongType": "runs inside a generated test module: a "
    "result of the wrong type, reported by pytest as the test's failure",
    "derivative.importers._tree.Untranslatable": "control flow inside an importer: a "
    "requirement with no timed counterpart; the importer lists it as not translated, with "
    "the reason",
    "derivative.solver._z3util.Unsupported": "control flow: a construct the Z3 encoding does "
    "not cover; the solver answers unknown (or skips a warning) instead",
}
"""Exception classes outside the root, each with why no user ever sees it."""


def _package_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(derivative.__path__, "derivative."):
        if info.name.startswith("derivative.forge.inside"):
            continue
        spec = importlib.util.find_spec(info.name)
        origin = spec.origin if spec else None
        if origin and STDLIB_MARKER in Path(origin).read_text(encoding="utf-8"):
            continue
        names.append(info.name)
    return sorted(names)


MODULES = _package_modules()


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                found[f"{name}.{value.__qualname__}"] = value
    return found


CLASSES = _exception_classes()


def _raised_names() -> set[str]:
    """Names that follow ``raise`` anywhere in the package (``raise X(...)``, ``raise X``)."""
    names: set[str] = set()
    for name in MODULES:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        for node in ast.walk(ast.parse(Path(spec.origin).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target: Any = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(target, ast.Name):
                    names.add(target.id)
                elif isinstance(target, ast.Attribute):
                    names.add(target.attr)
    return names


def test_the_walk_sees_the_whole_package() -> None:
    assert len(MODULES) > 60
    assert {"derivative.cli", "derivative.solver._check", "derivative.forge.run._pipeline",
            "derivative.certificates._verify", "derivative.grammar._parser"} <= set(MODULES)
    assert not [m for m in MODULES if m.startswith("derivative.forge.inside")]
    assert "derivative.forge.sandbox._channel.ChannelError" in CLASSES


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_every_exception_class_is_under_the_root_or_documented_internal(name: str) -> None:
    cls = CLASSES[name]
    if issubclass(cls, DerivativeError):
        assert name not in INTERNAL, f"{name} is under the root: drop it from INTERNAL"
    else:
        assert name in INTERNAL, (
            f"{name} derives from {cls.__mro__[1].__name__}: derive it from DerivativeError "
            "(InternalError for a bug) or list it in INTERNAL with the reason no user sees it"
        )


def test_the_internal_list_names_only_classes_that_exist() -> None:
    assert set(INTERNAL) <= set(CLASSES)


def test_every_error_class_is_raised() -> None:
    raised = _raised_names()
    errors = {n: c for n, c in CLASSES.items() if issubclass(c, DerivativeError)}
    unused = [
        name for name, cls in errors.items()
        if not any(issubclass(other, cls) and other.__name__ in raised
                   for other in errors.values())
    ]
    assert not unused, f"error classes nobody raises (nor a subclass of them): {unused}"


def test_compile_and_channel_errors_are_internal_errors() -> None:
    from derivative.forge.codegen._python import CompileError
    from derivative.forge.sandbox._channel import ChannelError

    for cls in (CompileError, ChannelError):
        assert issubclass(cls, InternalError)
        assert cls("x").exit_code == ExitCode.INTERNAL
        assert int(cls("x").exit_code) == 70


# --------------------------------------------------------------------------- the exit codes


def test_the_exit_code_table() -> None:
    assert [(c.name, int(c)) for c in ExitCode] == [
        ("OK", 0), ("NO", 1), ("BAD_INPUT", 2), ("INFEASIBLE", 3), ("SANDBOX_UNAVAILABLE", 4),
        ("POLICY_VIOLATION", 5), ("UNKNOWN", 6), ("INTERNAL", 70), ("OPERATIONAL_TIMEOUT", 75),
        ("INTERRUPTED", 130),
        ("BROKEN_PIPE", 141),
    ]
    assert DerivativeError("x").exit_code == 2
    assert SandboxUnavailable("x").exit_code == 4
    assert set(EXIT_LABELS) == set(ExitCode) - {ExitCode.INTERRUPTED, ExitCode.BROKEN_PIPE}
    assert exit_code_for("infeasible_proven") == 3 and exit_code_for("unknown") == 6
    assert set(STATUS_EXIT_CODES.values()) <= set(ExitCode)


def test_no_module_writes_an_exit_code_as_a_number() -> None:
    # `exit_code = 70`, `EXIT_... = 3`: the numbers live in ExitCode only.
    offenders = []
    for name in MODULES:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        if name == "derivative._errors":
            continue
        for node in ast.walk(ast.parse(Path(spec.origin).read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    label = t.id if isinstance(t, ast.Name) else getattr(t, "attr", "")
                    if (label == "exit_code" or label.startswith("EXIT_")) and isinstance(
                        node.value, (ast.Constant, ast.Dict)
                    ):
                        offenders.append(f"{name}: {label}")
    assert not offenders, offenders


# --------------------------------------------------------------------------- the channel


class _Channel:
    """Answers the import, then fails every request with ``failure``."""

    def __init__(self, failure: Exception) -> None:
        self.failure = failure

    def unexpected_input(self) -> bool:
        return False

    def request(self, message: dict[str, Any], deadline: float, *, decode: bool = True) -> Any:
        from derivative.forge.sandbox._channel import Response

        if message["op"] == "load":
            return Response(id=message["id"], ok=True)
        raise self.failure


def _launcher(failure: Exception) -> Any:
    from derivative.forge.sandbox._sandbox import Launcher, Running

    class FakeRunning(Running):
        def __init__(self) -> None:
            self.channel = _Channel(failure)  # type: ignore[assignment]
            self.isolation = ()
            self.image_id = None
            self.started_monotonic = time.monotonic()

        def kill(self) -> None:
            pass

        def finish(self, timeout: float) -> int | None:
            return 0

    class FakeLauncher(Launcher):
        name = "process"

        def launch(self, staged: Any, limits: Any, transcript: Any, deadline: float) -> Running:
            return FakeRunning()

    return FakeLauncher()


@pytest.mark.parametrize(
    ("failure", "status"),
    [("ProtocolError", "protocol_error"), ("ChannelTimeout", "timeout"),
     ("ChannelClosed", "crashed")],
)
def test_a_channel_failure_is_a_verdict_on_the_call_not_an_error(
    tmp_path: Path, failure: str, status: str
) -> None:
    # ChannelError is an InternalError now; what the candidate does to the channel must
    # still end as the call's result (and so as a failed obligation), never as exit 70.
    from derivative.forge.run import SandboxCaller
    from derivative.forge.sandbox import _channel, open_sandbox

    error = getattr(_channel, failure)("what the candidate did")
    candidate = tmp_path / "cand.py"
    candidate.write_text("def f(x):\n    return x\n", encoding="utf-8")
    sandbox = open_sandbox(candidate, contract_sha256="0" * 64, launcher=_launcher(error))
    with sandbox:
        result = sandbox.call("f", [1])
        assert result.status == status, result
        outcome = SandboxCaller(sandbox).call("f", [1])
    assert outcome.raised is not None and outcome.raised.name.startswith("Sandbox")
    assert sandbox.receipts, "every sandbox start still gets its receipt"
