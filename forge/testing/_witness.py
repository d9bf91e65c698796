"""The calls a hammer repeats, made as simple as they can be before they are repeated.

A hammer (``_hammer.py``) repeats the first counted call the stateful runs saw, with the
calls that made its arguments (``issue`` before ``reset(token from issue)``).  That call
is whatever came first: a solver's input or a generated one, such as a 64-character
password of punctuation, and the report of a race then shows it on every thread.  Before
hammering, each drawn argument of those calls is made as simple as it can be while the
last call is still counted: strings as short as possible, made of ``0`` where the
contract allows it (as Hypothesis shrinks a failing example's strings), integers as near
0, ``false`` before ``true``.  Every candidate is tried for real on a fresh instance and
kept only when every call returns a conforming value and the last is counted; the search
is a fixed sequence of tries, so the result is the same on every run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ._counting import _CallRecord, _count_hit, _CountCheck, _ref_key
from ._oracle import NOT_CONFORMING
from ._tracker import _StatefulFailure

if TYPE_CHECKING:
    from ._system import _SystemRunner

__all__ = ["simplest"]

_Step = tuple[str, dict[str, object], object]
"""A call of the witness: the operation, its arguments, the result it gave first (later
calls name that result as an argument; a replay maps it to the new one)."""


def _attempt(runner: _SystemRunner, c: _CountCheck, steps: list[_Step]
             ) -> list[_CallRecord] | None:
    """The records of ``steps`` made on a fresh instance, when every call returned a
    conforming value and the last one was counted; None otherwise."""
    tracker = runner.new_tracker()
    if not tracker.start():
        return None
    refs: dict[object, object] = {}
    records: list[_CallRecord] = []
    for op, args, first in steps:
        values = {k: refs.get(_ref_key(v), v) for k, v in args.items()}
        if not runner.judges[op].admits(values):
            return None
        try:
            rec = tracker.call(op, values, masked=runner.masked())
        except _StatefulFailure:  # evidence for the stateful runs to find, not a witness
            return None
        if rec.outcome.raised is not None or rec.result is NOT_CONFORMING:
            return None
        refs[_ref_key(first)] = rec.result
        records.append(rec)
    last = records[-1]
    hit = _count_hit(runner.engine.evaluator, c.count, last.args, last.result,
                     runner.judges[last.op])
    return records if hit is True else None


def _least(n: int, ok: Callable[[int], bool]) -> int | None:
    """The least ``k`` in ``0..n`` with ``ok(k)``, found by doubling then halving (so
    ``ok`` is taken to hold from some size on); None when even ``n`` fails."""
    low, probe = -1, 0
    while not ok(probe):
        if probe >= n:
            return None
        low, probe = probe, min(n, max(1, probe * 2))
    while probe - low > 1:
        mid = (low + probe) // 2
        if ok(mid):
            probe = mid
        else:
            low = mid
    return probe


def _simpler(value: object, accept: Callable[[object], bool]) -> None:
    """Offer ``accept`` simpler forms of ``value``, simplest first (it keeps the last it
    accepted)."""
    if isinstance(value, bool):
        if value:
            accept(False)
    elif isinstance(value, int):
        sign = 1 if value > 0 else -1
        _least(abs(value), lambda k: k == abs(value) or accept(sign * k))
    elif isinstance(value, str) and _least(len(value), lambda k: accept("0" * k)) is None:
        # no string of zeros will do (a pattern, say): the shortest prefix of the original
        _least(len(value), lambda k: k == len(value) or accept(value[:k]))


def simplest(runner: _SystemRunner, c: _CountCheck, prefix: list[_CallRecord],
             last: _CallRecord) -> tuple[list[_CallRecord], _CallRecord]:
    """``prefix`` and ``last`` with each drawn argument as simple as it can be while
    ``last`` is still counted (see the module docstring); unchanged when nothing simpler
    holds."""
    steps: list[_Step] = [(r.op, dict(r.args), r.result) for r in [*prefix, last]]
    best: list[_CallRecord] | None = None
    for i, (op, args, _) in enumerate(steps):
        for p in runner.ops[op].params:
            if p.from_op is not None:
                continue

            def accept(candidate: object, i: int = i, name: str = p.name) -> bool:
                nonlocal best
                if candidate == steps[i][1][name]:
                    return True
                trial = [(o, dict(a), f) for o, a, f in steps]
                trial[i][1][name] = candidate
                records = _attempt(runner, c, trial)
                if records is None:
                    return False
                steps[:] = trial
                best = records
                return True

            _simpler(args[p.name], accept)
    if best is None:
        return prefix, last
    *new_prefix, new_last = best
    return new_prefix, new_last
