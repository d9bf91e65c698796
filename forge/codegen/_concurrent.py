"""The concurrent hammer a written module carries when a system has an upper count bound.

``derivative tests`` (in process) and ``derivative run`` hammer every upper-bounded count
invariant (``forge/testing/_hammer.py``): the counted call is made ``bound + 1`` times
with one key, first in sequence on a fresh instance, then from that many threads under
the deterministic interleaving explorer, so that a check-then-set race (two resets of one
token both succeeding) is found by enumeration instead of by luck.  A written module
must keep that teeth when a team runs it in its own CI, so it carries this code, and the
explorer itself (``forge/inside/_explore.py``, standard library only), as text
(``_embed.py``): the same scenario, the same schedule limits (at most ``INTERLEAVINGS``
schedules, 2 preemptions, scheduling points only in the target's own files, the target
module's locks made cooperative) and the same wall-clock safety net.

The scenario is the first call the invariant's count counted during the module's own
runs of that invariant (``WITNESSES``, filled by ``SystemRun``), with the earlier calls
that produced its ``from`` arguments replayed first on every fresh instance.

Like ``_runtime.py`` this is a real module so that ruff and mypy read it; only the part
below the ``RUNTIME STARTS`` line is carried, annotations taken out.  It is never
imported by derivative.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from derivative.forge.inside import explorer

from ._runtime import (
    WITNESSES,
    Count,
    Inp,
    Owner,
    Raised,
    Returned,
    SystemRun,
    _conforming,
    _count_hit,
    _invoke,
    _resolve,
    _show,
    _target,
)

INTERLEAVINGS = 2000
"""Schedules explored per hammer at most (the module sets it from the environment)."""
runs = explorer.runs
"""The explorer's search; in a written module its own top-level function."""
Run = explorer.Run

Step = tuple[str, Inp, dict[str, int]]
"""A set-up call: operation, input, and the parameters that take an earlier set-up
call's result (parameter -> that call's position)."""

# ---------------------------------------------------------------- RUNTIME STARTS
EXPLORE_SAFETY_SECONDS = 300.0


def hammer(
    system: str,
    ops: Mapping[str, Owner],
    counts: Sequence[Count],
    focus: str,
    froms: Mapping[str, Mapping[str, str]],
) -> None:
    """Every upper bound of the invariant ``focus``: its first counted call made
    ``bound + 1`` times with one key, in sequence, then from as many threads under the
    interleaving explorer.  ``froms``: operation -> {parameter: its source operation}."""
    for i, c in enumerate(counts):
        if c.invariant != focus or not c.upper:
            continue
        witness = WITNESSES.get((focus, i))
        if witness is None:
            raise AssertionError(
                f"{c.header} was not exercised: no call of {c.op} was ever counted, so "
                f"{c.text} was not hammered under concurrency"
            )
        before, op, inp = witness
        steps, refs = _scenario(before, op, inp, froms)
        times = max(c.limit + 1, 2)
        _in_sequence(system, ops, counts, focus, steps, op, inp, refs, times)
        if INTERLEAVINGS > 0:
            _interleaved(system, ops, c, steps, op, inp, refs, times)


def _scenario(
    before: Sequence[tuple[str, Inp, Any]], op: str, inp: Inp,
    froms: Mapping[str, Mapping[str, str]],
) -> tuple[list[Step], dict[str, int]]:
    """The earlier calls that produced ``inp``'s ``from`` arguments (and theirs), in their
    order, and the references of ``inp`` to them."""
    needed: set[int] = set()
    links: dict[int, dict[str, int]] = {}

    def sources(call_op: str, call_inp: Inp, upto: int) -> dict[str, int]:
        found: dict[str, int] = {}
        for param, source in froms.get(call_op, {}).items():
            for j in range(upto - 1, -1, -1):
                src_op, src_inp, result = before[j]
                if src_op == source and result is not None and result == call_inp.get(param):
                    found[param] = j
                    if j not in needed:
                        needed.add(j)
                        links[j] = sources(src_op, src_inp, j)
                    break
        return found

    refs = sources(op, inp, len(before))
    order = sorted(needed)
    position = {j: k for k, j in enumerate(order)}
    steps = [(before[j][0], before[j][1], {p: position[k] for p, k in links[j].items()})
             for j in order]
    return steps, {p: position[k] for p, k in refs.items()}


def _with(inp: Inp, refs: Mapping[str, int], results: Sequence[Any]) -> dict[str, Any]:
    """``inp`` with each referenced parameter set to that set-up call's result."""
    out = dict(inp)
    out.update({p: results[k] for p, k in refs.items()})
    return out


def _in_sequence(
    system: str, ops: Mapping[str, Owner], counts: Sequence[Count], focus: str,
    steps: Sequence[Step], op: str, inp: Inp, refs: Mapping[str, int], times: int,
) -> None:
    """The set-up calls, then the counted call ``times`` times, on one fresh instance."""
    run = SystemRun(system, ops, counts, focus)
    results: list[Any] = []
    for step_op, step_inp, step_refs in steps:
        value = run.call(step_op, _with(step_inp, step_refs, results))
        if value is None:
            return  # the set-up did not give what the call needs: nothing to hammer
        results.append(value)
    args = _with(inp, refs, results)
    for _ in range(times):
        run.call(op, args)
    run.finish()


class _Schedule:
    """Per explored schedule: a fresh instance and the set-up calls (``fresh``), then one
    thread per call (``body(i)``), as the in-process explorer's scenario does."""

    def __init__(self, system: str, ops: Mapping[str, Owner], steps: Sequence[Step],
                 op: str, inp: Inp, refs: Mapping[str, int], times: int) -> None:
        self.system, self.ops, self.steps, self.op = system, ops, steps, op
        self.inp, self.refs, self.times = inp, refs, times
        self.ok = True
        self.lines: list[str] = []
        self.call_inp: dict[str, Any] = dict(inp)
        self.args: list[list[Any]] = []

    def fresh(self) -> object:
        instance = _resolve(self.system)()
        results: list[Any] = []
        self.ok = True
        self.lines = [f"{self.system}() -> s"]
        for step_op, step_inp, step_refs in self.steps:
            owner = self.ops[step_op]
            actual = _with(step_inp, step_refs, results)
            outcome = _invoke(getattr(instance, step_op), owner.args(actual))
            self.lines.append(f"r{len(results) + 1} = s.{owner.call_text(actual)} -> {outcome}")
            self.ok = self.ok and isinstance(outcome, Returned)
            results.append(_conforming(outcome, owner))
        self.call_inp = _with(self.inp, self.refs, results)
        owner = self.ops[self.op]
        self.args = [owner.args(self.call_inp) for _ in range(self.times)]
        return instance

    def body(self, i: int) -> Callable[[Any], object]:
        def call(instance: Any) -> object:
            return _invoke(getattr(instance, self.op), self.args[i])

        return call

    def call_text(self) -> str:
        owner = self.ops[self.op]
        shown = [f"{n}=r{self.refs[n] + 1}" if n in self.refs else f"{n}={_show(self.call_inp[n])}"
                 for n, _ in owner.params]
        return f"s.{self.op}(" + ", ".join(shown) + ")"


def _interleaved(
    system: str, ops: Mapping[str, Owner], c: Count, steps: Sequence[Step], op: str,
    inp: Inp, refs: Mapping[str, int], times: int,
) -> None:
    """The interleavings of ``times`` concurrent calls, fewest preemptions first; the
    first that breaks the bound (or deadlocks) fails the test with its trace."""
    scenario = _Schedule(system, ops, steps, op, inp, refs, times)
    module = _target()
    search = runs(
        scenario.fresh,
        [scenario.body(i) for i in range(times)],
        max_schedules=INTERLEAVINGS,
        max_preemptions=2,
        timeout=EXPLORE_SAFETY_SECONDS,
        trace_filter=_target_files(module),
        names=[f"thread {i + 1}" for i in range(times)],
        modules=[module],
    )
    seen, exhausted = 0, False
    try:
        for run in search:
            seen += 1
            exhausted = run.exhausted
            why = _broken(c, ops[op], scenario, run)
            if why is not None:
                raise AssertionError(_message(c, scenario, run, why))
    finally:
        search.close()
    if seen < INTERLEAVINGS and not exhausted:
        raise RuntimeError(
            f"{c.header}: the exploration of interleavings ran into its wall-clock safety "
            f"limit of {EXPLORE_SAFETY_SECONDS:g} s after {seen} of at most {INTERLEAVINGS} "
            "schedules (an overloaded machine?): no evidence either way, run it again"
        )


def _broken(c: Count, owner: Owner, scenario: _Schedule, run: Run) -> str | None:
    """What one interleaving broke (a deadlock, or the count's bound), or None."""
    if run.deadlock:
        return "deadlock: the calls never finished"
    if not scenario.ok:
        return None  # a set-up call failed: nothing to judge
    n = 0
    for r in run.results:
        if r.status == "returned" and isinstance(r.value, Returned):
            n += 1 if _count_hit(c, owner, scenario.call_inp, r.value) else 0
    if not c.holds(n):
        return f"the count reached {n}"
    return None


def _message(c: Count, scenario: _Schedule, run: Run, why: str) -> str:
    lines = list(scenario.lines)
    for i, r in enumerate(run.results):
        shown = str(r.value) if isinstance(r.value, Returned | Raised) else r.status
        lines.append(f"thread {i + 1}: {scenario.call_text()} -> {shown}")
    trace = "\n".join("    " + line for line in run.trace_text(max_lines=60).splitlines())
    return (
        f"{c.header} failed under concurrency\n  calls:    "
        + "\n            ".join(lines)
        + f"\n  schedule: {run.summary()}\n  got:      {why}\n  required: {c.text}"
        + f"\n  interleaving:\n{trace}"
    )


def _target_files(module: ModuleType) -> Callable[[str], bool] | None:
    """Scheduling points only in the target's own files (its module's folder), never in
    this module; None for a target without a file (the explorer's default filter)."""
    module_file = getattr(module, "__file__", None)
    if not module_file:
        return None
    folder = os.path.dirname(os.path.abspath(module_file))
    own = os.path.abspath(__file__)

    def trace_filter(filename: str) -> bool:
        if not filename or filename.startswith("<"):
            return False
        path = os.path.abspath(filename)
        return path.startswith(folder + os.sep) and path != own

    return trace_filter
