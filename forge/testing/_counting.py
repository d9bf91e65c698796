"""What a run counts: inputs and trigger hits per obligation, the count links of
invariants, and the calls of one instance's life.

``count_checks`` splits an invariant into ``count(OP where P, per X) CMP N`` links (the
count on the left); ``_count_hit`` says whether one normal return is counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from derivative._ast import Compare, Count, Obligation
from derivative._eval import Evaluator
from derivative._printer import to_source
from derivative._types import TNone
from derivative._values import _Undefined
from derivative.solver import Trigger

from ._oracle import NOT_CONFORMING, Judge, Outcome, describe_input, describe_outcome

__all__ = ["count_checks"]


@dataclass
class _Counts:
    """Inputs and trigger hits of one owner during one complete run."""

    inputs: dict[str, int] = field(default_factory=dict)
    hits: dict[str, int] = field(default_factory=dict)
    valid_inputs: int = 0
    stopped: bool = False

    def record(self, judged: set[str], triggers: Sequence[Trigger], hit: Sequence[bool]) -> None:
        if self.stopped:
            return
        self.valid_inputs += 1
        for oid in judged:
            self.inputs[oid] = self.inputs.get(oid, 0) + 1
        for t, h in zip(triggers, hit, strict=True):
            if h:
                self.hits[t.id] = self.hits.get(t.id, 0) + 1


@dataclass(frozen=True)
class _CountCheck:
    """One ``count(OP where P, per X) CMP N`` link of an invariant (count on the left)."""

    obligation: Obligation
    count: Count
    cmp: str
    bound: int

    @property
    def upper(self) -> bool:
        return self.cmp in ("<=", "<", "==")

    @property
    def limit(self) -> int:
        """The largest count allowed (upper bounds) / the least required (lower)."""
        if self.cmp == "<":
            return self.bound - 1
        if self.cmp == ">":
            return self.bound + 1
        return self.bound

    def holds(self, n: int) -> bool:
        return n <= self.limit if self.upper else n >= self.limit

    def describe(self) -> str:
        per = f", per {self.count.per}" if self.count.per else ""
        where = f" where {to_source(self.count.where)}" if self.count.where is not None else ""
        return f"count({self.count.op}{where}{per}) {self.cmp} {self.bound}"


_MIRROR = {"<=": ">=", "<": ">", ">=": "<=", ">": "<", "==": "=="}


def count_checks(o: Obligation, evaluator: Evaluator) -> list[_CountCheck] | None:
    """The count links of an invariant, or None when it is not a conjunction of them."""
    from ._strategies import conjuncts

    out: list[_CountCheck] = []
    for c in conjuncts(o.expr):
        if not isinstance(c, Compare):
            return None
        for i, op in enumerate(c.ops):
            a, b = c.operands[i], c.operands[i + 1]
            cmp: str
            if isinstance(a, Count) and not isinstance(b, Count):
                count, other, cmp = a, b, op
            elif isinstance(b, Count) and not isinstance(a, Count):
                count, other, cmp = b, a, _MIRROR.get(op, op)
            else:
                return None
            value = evaluator.eval(other)
            if not isinstance(value, int) or isinstance(value, bool) or cmp not in _MIRROR:
                return None
            out.append(_CountCheck(o, count, cmp, value))
    return out


@dataclass
class _CallRecord:
    op: str
    args: dict[str, object]
    outcome: Outcome
    result: object = None
    name: str = ""

    def text(self, instance: str = "s") -> str:
        call = describe_input(self.op, self.args)
        prefix = f"{self.name} = " if self.name else ""
        return f"{prefix}{instance}.{call} -> {describe_outcome(self.outcome)}"


def _ref_key(value: object) -> object:
    try:
        hash(value)
        return (type(value).__name__, value)
    except TypeError:
        return ("id", id(value))


def _count_hit(
    evaluator: Evaluator, count: Count, args: Mapping[str, object], result: object, judge: Judge
) -> bool | None:
    """Whether a normal return of the counted op is counted; None if undefined."""
    if count.where is None:
        return True
    env = dict(args)
    if not isinstance(judge.signature.returns, TNone):
        if result is NOT_CONFORMING:
            return None
        env["result"] = result
    h = evaluator.holds(count.where, env)
    return None if isinstance(h, _Undefined) else h
