"""How the engine reaches a candidate: the ``Caller`` protocols and what crosses them.

A ``Caller`` makes single calls (``InProcessCaller`` in this interpreter, ``SandboxCaller``
across the sandbox channel, in ``forge.run``); a ``ConcurrentCaller`` also explores thread
interleavings where the candidate runs and answers with ``Interleaving``s.  The engine only
ever sees ``Outcome``s and judges them with the oracle on the host.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from derivative._errors import DerivativeError

from ._oracle import Outcome

__all__ = ["Caller", "ConcurrentCaller", "EngineError", "Interleaving", "Ref", "Undefined",
           "defined"]


class EngineError(DerivativeError):
    """The engine could not run at all (a target that cannot be imported, say)."""


class Undefined(Exception):
    """A call's outcome says the candidate lacks what the contract names: the run of that
    function or system stops, and its obligations are reported once, as not judged."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


def defined(outcome: Outcome) -> Outcome:
    """``outcome``, unless it says the candidate lacks the name called (``Undefined``)."""
    if outcome.undefined is not None:
        raise Undefined(outcome.undefined)
    return outcome


# --------------------------------------------------------------------------- callers


@runtime_checkable
class Caller(Protocol):
    """How the engine reaches the implementation.

    Arguments are language values (``int``, ``bool``, ``float`` for reals, ``str``,
    ``date``, ``tuple`` for lists, ``EnumValue``), positional in declared order; the
    caller converts them to what the candidate expects (lists, the candidate's Enum
    members or member names).  Results come back as ``Outcome``: whatever was returned,
    or the raised exception's classes (real MRO: name, module, whether each is the
    built-in of that name, whether it is the candidate's own code) and message.  A caller
    never raises for something the candidate did.
    """

    def call(self, func_name: str, args: Sequence[object]) -> Outcome: ...

    def new_instance(self, system: str) -> object:
        """A fresh instance of ``system`` (a handle), or an ``Outcome`` that raised."""
        ...

    def method(self, handle: object, op: str, args: Sequence[object]) -> Outcome: ...


@dataclass(frozen=True)
class Ref:
    """In a concurrent scenario: "the value returned by set-up call number ``index``"."""

    index: int


@dataclass
class Interleaving:
    """One explored schedule: its description and each thread's outcome, in order."""

    schedule: str
    setup: list[Outcome]
    outcomes: list[Outcome]
    trace: str = ""
    deadlock: bool = False


@runtime_checkable
class ConcurrentCaller(Protocol):
    """A caller that can explore thread interleavings where the candidate runs.

    ``explore(system, setup, calls, limit)``: for each explored interleaving, a fresh
    instance, the ``setup`` calls ``(op, args)`` in order, then the ``calls`` from one
    thread each; ``Ref(i)`` in arguments stands for setup call ``i``'s result.  Yields
    one ``Interleaving`` per schedule (at most ``limit``); the caller may stop early
    when ``stop(interleaving)`` returns true.
    """

    def explore(
        self,
        system: str,
        setup: Sequence[tuple[str, Sequence[object]]],
        calls: Sequence[tuple[str, Sequence[object]]],
        limit: int,
        stop: Callable[[Interleaving], bool],
    ) -> Iterator[Interleaving]: ...
