"""Immutable nodes of the timed layer: signals, modes and requirements over a discrete clock.

A ``timed NAME`` block (docs/language.md §14) declares signals that take a value at
every step and requirements about how they evolve.  Its nodes are kept apart from the
untimed ``Contract``: the untimed questions never see them, and the timed checker
(``derivative.timed``) unrolls them into ordinary expressions of the language over one
param per signal and step, so that every reading (Z3, the SMT-LIB printer, the
evaluator) decides them without knowing about time.

Conditions are trees of ``TNow`` leaves (an ordinary boolean expression, read at the
step where the condition is read) under the past-time and boolean forms below; the
timed forms of a requirement (scope, trigger, timing) are fields of ``TimedReq``.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from derivative._ast import Expr, Field, Located, TypeRef

MAX_DEPTH = 200
"""The deepest unrolling ``check --depth`` accepts: read by the command line before
anything of the timed layer is imported."""


class TNow(Located):
    """An ordinary boolean expression over the signals, read at the current step."""

    kind: Literal["now"] = "now"
    expr: Expr


class TNot(Located):
    kind: Literal["not"] = "not"
    operand: TCond


class TBool(Located):
    """``a and b and ...`` / ``a or b or ...`` over timed conditions."""

    kind: Literal["bool"] = "bool"
    op: Literal["and", "or"]
    operands: tuple[TCond, ...]


class TPrevious(Located):
    """``previously C``: C held at the previous step (false at step 0)."""

    kind: Literal["previously"] = "previously"
    operand: TCond


class THeld(Located):
    """``C has held for N steps``: C at every step of [t-N, t] (false when t < N)."""

    kind: Literal["held"] = "held"
    operand: TCond
    steps: int


class TOccurred(Located):
    """``C occurred within N steps``: C at some step of [max(0, t-N), t]."""

    kind: Literal["occurred"] = "occurred"
    operand: TCond
    steps: int


class TBecomes(Located):
    """``C becomes true`` / ``C becomes false``: an edge (false at step 0)."""

    kind: Literal["becomes"] = "becomes"
    operand: TCond
    value: bool


TCond: TypeAlias = TNow | TNot | TBool | TPrevious | THeld | TOccurred | TBecomes

ScopeKind: TypeAlias = Literal["in", "not_in", "only_in", "before", "after"]
TriggerKind: TypeAlias = Literal["when", "upon"]
TimingKind: TypeAlias = Literal[
    "always", "never", "immediately", "next", "within", "for", "after", "until", "before"
]


class Scope(Located):
    """Where a requirement applies: the intervals of steps a mode defines."""

    kind: ScopeKind
    mode: str


class Trigger(Located):
    """The steps a requirement starts from: ``when C`` (every step), ``upon C`` (edges)."""

    kind: TriggerKind
    cond: TCond


class Timing(Located):
    """What must hold from a trigger step: ``steps`` for the bounded forms, ``stop`` for
    ``until``/``before``."""

    kind: TimingKind
    response: TCond
    steps: int | None = None
    stop: TCond | None = None


class Signal(Located):
    """``input NAME: TYPE`` (the environment's) or ``output NAME: TYPE`` (the system's)."""

    direction: Literal["input", "output"]
    name: str
    type: TypeRef


class Mode(Located):
    """``mode NAME: CONDITION``: a named condition over the signals at the current step."""

    name: str
    cond: TCond


class TimedReq(Located):
    """``requirement ID [tags] "text": [SCOPE,] [TRIGGER,] TIMING``."""

    id: str
    generated_id: bool = False
    scope: Scope | None = None
    trigger: Trigger | None = None
    timing: Timing
    tags: dict[str, str] = Field(default_factory=dict)
    text: str | None = None
    source: str = ""


class TimedComponent(Located):
    """A ``timed NAME`` block: its signals, modes and requirements, in source order."""

    name: str
    signals: tuple[Signal, ...] = ()
    modes: tuple[Mode, ...] = ()
    requirements: tuple[TimedReq, ...] = ()

    def inputs(self) -> tuple[Signal, ...]:
        return tuple(s for s in self.signals if s.direction == "input")

    def outputs(self) -> tuple[Signal, ...]:
        return tuple(s for s in self.signals if s.direction == "output")
