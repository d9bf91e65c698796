"""The ``Caller`` the engine uses when the candidate runs in a sandbox.

It lives with ``derivative run`` rather than with the engine so that the testing room and
the sandbox room never import each other: this adapter is the one place that knows both.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from derivative._errors import OperationalTimeout

from ..sandbox import ExploreBatch, SetupRef, WireOutcome
from ..testing import EngineError, Interleaving, Outcome, Raised, Ref
from ._replay import Recording

UNDEFINED = "SandboxUndefined"
"""The class the worker reports when the candidate lacks a name the host asked for."""


def _sandbox_class(status: str) -> str:
    """The class name a failed sandbox request shows as: ``timeout`` -> ``SandboxTimeout``."""
    return "Sandbox" + "".join(p.capitalize() for p in status.split("_"))


class SandboxCaller:
    """Adapts a sandbox session (``forge/sandbox/_sandbox.py``: ``call``/``new_instance``/
    ``method`` returning ``CallResult``) to the ``Caller`` protocol, and its ``explore``
    (the interleaving explorer running inside the sandbox) to ``ConcurrentCaller``.

    Anything but a normal return or a raise by the candidate's own code (a timeout, a
    crash, a protocol error, a stale instance, a worker-side error) becomes a raised
    outcome with a ``Sandbox...`` class name, so it can only ever fail an obligation.
    """

    def __init__(self, sandbox: Any, recording: Recording | None = None) -> None:
        self.sandbox = sandbox
        self.recording = recording
        """Where the judged calls are sampled for the replay (``_replay.py``), if anywhere."""
        staged = getattr(sandbox, "staged", None)
        self.own_modules = _staged_modules(getattr(staged, "files", ()))
        """The modules of the candidate's own code: those staged with it."""

    def _raised(self, exc: Any) -> Raised:
        """A candidate's exception as the oracle reads it: per class, its module, whether
        the worker found it to be the built-in of that name, and whether its module is
        one the candidate brought."""
        modules = tuple(exc.modules)
        return Raised(tuple(exc.classes), str(exc.message), modules, tuple(exc.builtin),
                      tuple(m in self.own_modules for m in modules))

    def _outcome(self, result: Any) -> Outcome:
        status = getattr(result, "status", "error")
        if status == "returned":
            return Outcome.returned(result.value)
        exc = getattr(result, "exc", None)
        if status == "raised" and exc is not None:
            return Outcome(raised=self._raised(exc))
        if exc is not None and tuple(exc.classes)[:1] == (UNDEFINED,) and exc.phase == "lookup":
            return Outcome.missing(str(exc.message))
        detail = getattr(result, "detail", "") or (exc.message if exc is not None else "")
        return Outcome(raised=Raised((_sandbox_class(str(status)),), str(detail)))

    def call(self, func_name: str, args: Sequence[object]) -> Outcome:
        outcome = self._outcome(self.sandbox.call(func_name, list(args)))
        if self.recording is not None:
            self.recording.call(func_name, tuple(args), outcome)
        return outcome

    def new_instance(self, system: str) -> object:
        result = self.sandbox.new_instance(system)
        if getattr(result, "status", None) == "returned":
            if self.recording is not None:
                self.recording.instance(result.value, system)
            return result.value
        return self._outcome(result)

    def method(self, handle: object, op: str, args: Sequence[object]) -> Outcome:
        outcome = self._outcome(self.sandbox.method(handle, op, list(args)))
        if self.recording is not None:
            self.recording.method(handle, op, tuple(args), outcome)
        return outcome

    def _wire_outcome(self, out: WireOutcome) -> Outcome:
        if out.ok:
            return Outcome.returned(out.value)
        exc = out.exc
        if exc is not None and exc.phase in ("call", "load"):
            return Outcome(raised=self._raised(exc))
        return Outcome(raised=Raised(("SandboxError",), exc.message if exc else ""))

    def explore(
        self,
        system: str,
        setup: Sequence[tuple[str, Sequence[object]]],
        calls: Sequence[tuple[str, Sequence[object]]],
        limit: int,
        stop: Callable[[Interleaving], bool],
    ) -> Iterator[Interleaving]:
        """The interleavings explored inside the sandbox, batch by batch.

        A timeout, a crash, an exceeded memory budget or a protocol error while exploring
        ends the exploration with one last interleaving marked as a deadlock (the calls
        never finished), so that it fails the invariant instead of leaving it passed on
        what came before;
        a request the worker could not serve (no such class, an argument it cannot
        decode) is an ``EngineError``, and the invariant keeps its note.
        """

        def wire(args: Sequence[object]) -> list[object]:
            return [SetupRef(a.index) if isinstance(a, Ref) else a for a in args]

        started = time.monotonic()
        seen = 0
        try:
            result = self.sandbox.explore(
                system, [(op, wire(a)) for op, a in setup], [(op, wire(a)) for op, a in calls],
                limit=limit,
            )
        except (TypeError, ValueError) as exc:
            raise EngineError(f"the calls cannot be sent to the sandbox: {exc}") from exc
        try:
            while True:
                status = str(getattr(result, "status", "error"))
                if status != "returned":
                    raised = getattr(result, "exc", None)
                    detail = str(getattr(result, "detail", "") or
                                 (raised.message if raised is not None else status))
                    if status in ("timeout", "crashed", "out_of_memory", "protocol_error"):
                        failed = Outcome(raised=Raised((_sandbox_class(status),), detail))
                        yield Interleaving(f"sandbox {status.replace('_', ' ')}: {detail}",
                                           [], [failed for _ in calls], trace=detail,
                                           deadlock=True)
                        return
                    raise EngineError(f"the sandbox did not explore interleavings: {detail}")
                batch: ExploreBatch = result.value
                for run in batch.runs:
                    inter = Interleaving(
                        run.schedule,
                        [self._wire_outcome(o) for o in run.setup],
                        [self._wire_outcome(o) for o in run.outcomes],
                        trace=run.trace,
                        deadlock=run.deadlock,
                    )
                    seen += 1
                    yield inter
                    if stop(inter):
                        return
                if not batch.more:
                    _safety_net(self.sandbox, system, seen, limit, started)
                    return
                result = self.sandbox.explore_next()
        finally:
            # the worker's search may still be going: end it (a no-op when it is over)
            self.sandbox.explore_close()


def _staged_modules(files: Any) -> frozenset[str]:
    """Module names of the staged candidate's files (relative paths): ``pkg/core.py`` is
    ``pkg.core``, ``pkg/__init__.py`` is ``pkg``."""
    out: set[str] = set()
    for path in files or ():
        text = str(path)
        if not text.endswith(".py"):
            continue
        parts = text[:-3].split("/")
        if parts[-1] == "__init__":
            parts.pop()
        if parts and all(p.isidentifier() for p in parts):
            out.add(".".join(parts))
    return frozenset(out)


def _safety_net(sandbox: Any, system: str, seen: int, limit: int, started: float) -> None:
    """Neither the schedule bound nor the end of the search space ended the exploration:
    its wall-clock safety net did, after a number of schedules that depends on the
    machine's speed, so nothing may be concluded from it (exit 75)."""
    budget = getattr(getattr(sandbox, "limits", None), "explore_timeout", None)
    if seen < limit and budget is not None and time.monotonic() - started >= budget:
        raise OperationalTimeout(
            f"the exploration of interleavings of {system} ran into its wall-clock safety "
            f"limit of {budget:g} s after {seen} of at most {limit} schedules"
        )
