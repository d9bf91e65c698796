"""The one error root of derivative, its user-facing subclasses, and the exit codes.

Every failure a user can cause (a bad spec, a missing file, a wrong flag) is a
``DerivativeError``; the CLI turns it into a message and exit code 2 and never
shows a traceback.  Errors about a place in a source file carry the file, line,
column and the source line so the message can point at it with a caret, the way
compilers do: a requirement author should be able to fix the spec from the
message alone.  A bug the code notices itself is an ``InternalError``: the CLI
reports it like any unexpected exception (exit 70 and a crash report).

``ExitCode`` is the one table of exit codes (docs/cli.md, "Exit codes"): the errors, the
CLI's commands, ``derivative run``'s report and the help text all read it, and a test
holds the tables in the README and ``docs/cli.md`` to it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from derivative._record import record


class ExitCode(enum.IntEnum):
    """The exit codes of every command (docs/cli.md, "Exit codes")."""

    OK = 0
    """success: ``feasible``, ``passed``, ``verified``, accepted, valid"""
    NO = 1
    """a "no" backed by evidence: ``failed``, refused, rejected, a ``--strict`` finding"""
    BAD_INPUT = 2
    """bad input: a spec error, a missing file, a wrong flag"""
    INFEASIBLE = 3
    """the contract itself is contradictory: ``infeasible_proven``"""
    SANDBOX_UNAVAILABLE = 4
    """the requested isolation could not be had: ``sandbox_unavailable``"""
    POLICY_VIOLATION = 5
    """the candidate broke the isolation posture: ``sandbox_policy_violation``"""
    UNKNOWN = 6
    """the solver could not decide a question the answer depends on: ``unknown``"""
    INTERNAL = 70
    """an internal error (a bug)"""
    OPERATIONAL_TIMEOUT = 75
    """a wall-clock safety net fired: no answer (``EX_TEMPFAIL``: try again)"""
    INTERRUPTED = 130
    """interrupted with Ctrl-C"""
    BROKEN_PIPE = 141
    """the output pipe was closed early"""


EXIT_LABELS: Mapping[ExitCode, str] = MappingProxyType({
    ExitCode.OK: "ok",
    ExitCode.NO: "no (with evidence)",
    ExitCode.BAD_INPUT: "bad input",
    ExitCode.INFEASIBLE: "infeasible",
    ExitCode.SANDBOX_UNAVAILABLE: "sandbox unavailable",
    ExitCode.POLICY_VIOLATION: "policy violation",
    ExitCode.UNKNOWN: "unknown",
    ExitCode.INTERNAL: "internal error",
    ExitCode.OPERATIONAL_TIMEOUT: "operational timeout (a wall-clock safety net fired; "
    "try again)",
})
"""Short words for the codes a command decides (``derivative --help`` lists them)."""

STATUS_EXIT_CODES: Mapping[str, ExitCode] = MappingProxyType({
    "feasible": ExitCode.OK,
    "passed": ExitCode.OK,
    "failed": ExitCode.NO,
    "verified": ExitCode.OK,
    "validation_failed": ExitCode.NO,
    "infeasible_proven": ExitCode.INFEASIBLE,
    "sandbox_unavailable": ExitCode.SANDBOX_UNAVAILABLE,
    "sandbox_policy_violation": ExitCode.POLICY_VIOLATION,
    "unknown": ExitCode.UNKNOWN,
})
"""The exit code of each status word of ``check``, ``run``, ``tests`` and ``build``."""


def exit_code_for(status: str) -> ExitCode:
    """The exit code of a status word (``KeyError`` for a word that is not one)."""
    return STATUS_EXIT_CODES[status]


class DerivativeError(Exception):
    """Root of every error derivative raises on purpose."""

    exit_code: int = ExitCode.BAD_INPUT

    def render(self) -> str:
        """The message as the CLI prints it."""
        return f"error: {self}"


@record
class SourcePos:
    """A place in a source file: 1-based line and column."""

    file: str
    line: int
    column: int
    source_line: str = ""

    def caret(self) -> str:
        """The source line and a caret under the column (tabs kept so it lines up)."""
        if not self.source_line:
            return ""
        text = self.source_line.rstrip("\n")
        prefix = "".join(c if c == "\t" else " " for c in text[: max(self.column - 1, 0)])
        return f"    {text}\n    {prefix}^"


class SpecError(DerivativeError):
    """Something wrong at a place in a spec: syntax, types, names, includes."""

    def __init__(
        self,
        message: str,
        pos: SourcePos | None = None,
        hint: str | None = None,
        related: Sequence[tuple[str, SourcePos]] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint
        self.related = tuple(related)

    @property
    def file(self) -> str | None:
        return self.pos.file if self.pos else None

    @property
    def line(self) -> int | None:
        return self.pos.line if self.pos else None

    @property
    def column(self) -> int | None:
        return self.pos.column if self.pos else None

    def render(self) -> str:
        head = "error: " + self.message
        if self.pos is not None:
            head = f"{self.pos.file}:{self.pos.line}:{self.pos.column}: {head}"
        parts = [head]
        if self.pos is not None and self.pos.caret():
            parts.append(self.pos.caret())
        for label, where in self.related:
            parts.append(f"{where.file}:{where.line}:{where.column}: note: {label}")
            if where.caret():
                parts.append(where.caret())
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)


class SpecErrors(DerivativeError):
    """Several spec errors found in one pass (the type checker reports them all)."""

    def __init__(self, errors: Iterable[SpecError]) -> None:
        self.errors = tuple(errors)
        super().__init__("; ".join(e.message for e in self.errors))

    def render(self) -> str:
        return "\n".join(e.render() for e in self.errors)


class UsageError(DerivativeError):
    """A wrong flag, a missing file or another bad request to the CLI or API."""


class OperationalTimeout(DerivativeError):
    """A wall-clock safety net fired: the work did not finish in time on this machine.

    Not an answer and not a resource limit.  Whether a solver answers is decided by
    its deterministic resource limit (the same input gives the same answer on an idle
    and on a loaded machine); the wall clock only guards against a hang.  When it fires,
    the outcome would depend on the machine's speed, so nothing is reported as if it
    were a result: the run stops with exit code 75 (``EX_TEMPFAIL``: try again).
    """

    exit_code = ExitCode.OPERATIONAL_TIMEOUT

    def render(self) -> str:
        return f"error: operational timeout: {self}"


class SandboxUnavailable(DerivativeError):
    """The requested isolation could not be had; nothing was judged."""

    exit_code = ExitCode.SANDBOX_UNAVAILABLE


class InternalError(DerivativeError):
    """A bug the code caught itself (an invariant broke), never bad input.

    The CLI reports it as it reports any unexpected exception: exit 70, one line naming
    it and a crash report holding the traceback.
    """

    exit_code = ExitCode.INTERNAL
