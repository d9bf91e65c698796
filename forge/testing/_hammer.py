"""Hammering an upper-bounded count invariant of a system.

The counted operation is called ``limit + 1`` times with one key (its arguments first made
as simple as they can be while the call is still counted, ``_witness.py``): first in
sequence on a fresh instance, then concurrently, one thread per call, under the deterministic
interleaving explorer of a ``ConcurrentCaller``; the first interleaving that breaks the
bound (or deadlocks) is reported with its schedule and trace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from derivative._errors import DerivativeError, OperationalTimeout

from ._callers import ConcurrentCaller, Interleaving, Ref
from ._counting import _CallRecord, _count_hit, _CountCheck, _ref_key
from ._oracle import describe, describe_outcome, normalize
from ._tracker import _StatefulFailure
from ._witness import simplest

if TYPE_CHECKING:
    from ._system import _SystemRunner

__all__ = ["hammer"]


def hammer(runner: _SystemRunner, c: _CountCheck) -> None:
    """Call the counted operation ``limit + 1`` times with one key: in sequence,
    then concurrently under the interleaving explorer."""
    o = c.obligation
    witness = runner.witnesses.get(o.id)
    if witness is None:
        runner.notes.setdefault(
            o.id, f"no call of {c.count.op} was ever counted, so its bound was not hammered"
        )
        return
    *before, last = witness
    used = {_ref_key(v) for v in last.args.values()}
    prefix = [r for r in before if r.op in runner.sources and _ref_key(r.result) in used]
    prefix, last = simplest(runner, c, prefix, last)  # what the report will show, repeated
    times = max(c.limit + 1, 2)
    # Sequentially on a fresh instance: the same call, then the key held while the other
    # arguments vary, then the key left and come back to.
    for sequence in _sequences(runner, c, last.args, times):
        _in_sequence(runner, prefix, sequence)
        if o.id in runner.inv_failures:
            return
    if not runner.engine.options.concurrency:
        return
    if not isinstance(runner.caller, ConcurrentCaller):
        runner.notes.setdefault(o.id, "the caller cannot explore interleavings")
        return
    _concurrent(runner, c, prefix, last, times)


def _in_sequence(runner: _SystemRunner, prefix: list[_CallRecord],
                 sequence: list[tuple[str, dict[str, object]]]) -> None:
    """The calls of ``sequence`` on a fresh instance, after ``prefix`` (their ``from``
    arguments rebound to this instance's results); an invariant broken is recorded."""
    tracker = runner.new_tracker()
    if not tracker.start():
        return
    try:
        refs = tracker.replay(prefix)
        if refs is None:
            return
        for op, values in sequence:
            args = {k: refs.get(_ref_key(v), v) for k, v in values.items()}
            tracker.call(op, args, masked=runner.masked())
        tracker.finish()
        tracker.commit()
    except _StatefulFailure as exc:
        exc.record(runner)


def _sequences(runner: _SystemRunner, c: _CountCheck, args: dict[str, object],
               times: int) -> list[list[tuple[str, dict[str, object]]]]:
    """The sequential scenarios of an upper bound, each a list of calls of the counted op.

    1. the same call ``times`` times (a counter that never stops);
    2. the ``per`` key held while every other plain argument takes a new value on each call
       (a count per user that another limit, per minute, would stop at the same minute:
       without this, ``count reaches N`` can be out of reach for a correct candidate);
    3. with a ``per`` key: ``limit`` calls with the key, one with another key, then the
       key again (a per-key window that is reset when another key arrives).
    """
    op = c.count.op
    out = [[(op, dict(args))] * times]
    varied = [_vary(runner, op, args, i, keep=c.count.per) for i in range(times)]
    if all(v is not None for v in varied) and len({repr(v) for v in varied}) > 1:
        out.append([(op, v) for v in varied if v is not None])
    if c.count.per is not None and c.count.per in args:
        other = next((v for i in range(1, 4)
                      if (v := _vary(runner, op, args, i, only=c.count.per)) is not None), None)
        if other is not None:
            out.append([(op, dict(args))] * c.limit + [(op, other), (op, dict(args))])
    return out


def _vary(runner: _SystemRunner, op: str, args: dict[str, object], step: int, *,
          keep: str | None = None, only: str | None = None) -> dict[str, object] | None:
    """``args`` with each plain int or str argument (not ``keep``; only ``only`` if given)
    moved ``step`` away (ints up, or down when up leaves the valid inputs; strings get a
    suffix); None when no such variation is a valid input. ``from`` arguments never move."""
    judge = runner.judges[op]
    params = {p.name: p for p in runner.ops[op].params}
    for sign in (1, -1):
        values = dict(args)
        for name, value in args.items():
            param = params.get(name)
            if name == keep or (only is not None and name != only) or param is None \
                    or param.from_op is not None or isinstance(value, bool):
                continue
            if isinstance(value, int):
                values[name] = value + sign * step
            elif isinstance(value, str) and step:
                values[name] = value + "abcdefghij"[step % 10] * (1 if sign > 0 else 2)
        if step == 0 or (values != args and judge.admits(values)):
            return values
    return None


_Calls = list[tuple[str, list[object]]]


def _concurrent(
    runner: _SystemRunner, c: _CountCheck, prefix: list[_CallRecord], last: _CallRecord,
    times: int,
) -> None:
    """The interleavings of ``times`` (or ``--threads``) concurrent calls of ``last``."""
    setup, calls = _scenario(runner, prefix, last, times)
    o = c.obligation
    explored = 0

    def stop(run: Interleaving) -> bool:
        nonlocal explored
        explored += 1
        return _violated(runner, c, setup, calls, run) is not None

    try:
        assert isinstance(runner.caller, ConcurrentCaller)
        explored_runs = runner.caller.explore(
            runner.name, setup, calls, runner.engine.options.interleavings, stop
        )
        for run in explored_runs:
            why = _violated(runner, c, setup, calls, run)
            runner.inv_inputs[o.id] += 1
            if why is not None:
                runner.inv_failures[o.id] = _failure(runner, c, prefix, calls, run, why)
                break
    except OperationalTimeout:
        raise  # no evidence either way: the run stops (exit 75)
    except DerivativeError as exc:
        runner.notes.setdefault(o.id, f"interleavings not explored: {exc}")
    runner.explored[o.id] += explored
    runner.engine.stats.setdefault(runner.name, {})[f"{o.id}:interleavings"] = explored


def _scenario(
    runner: _SystemRunner, prefix: list[_CallRecord], last: _CallRecord, times: int
) -> tuple[_Calls, _Calls]:
    """The set-up calls (the prefix, results as ``Ref``s) and one call per thread."""
    setup: _Calls = []
    by_name: dict[object, Ref] = {}
    for i, rec in enumerate(prefix):
        args = [by_name.get(_ref_key(v), v) for v in runner._args(rec.op, rec.args)]
        setup.append((rec.op, args))
        by_name[_ref_key(rec.result)] = Ref(i)
    args = [by_name.get(_ref_key(v), v) for v in runner._args(last.op, last.args)]
    threads = runner.engine.options.threads or times
    calls = [(last.op, list(args)) for _ in range(max(threads, 2))]
    return setup, calls


def _violated(
    runner: _SystemRunner, c: _CountCheck, setup: _Calls, calls: _Calls, run: Interleaving
) -> str | None:
    """What one interleaving broke (a deadlock, or the count's bound), or None."""
    if run.deadlock:
        return "deadlock: the calls never finished"
    if any(out.raised is not None for out in run.setup):
        return None
    judge = runner.judges[c.count.op]
    env_by_ref = [normalize(out.value, runner.judges[op].signature.returns)
                  for (op, _), out in zip(setup, run.setup, strict=True)]
    counted: dict[object, int] = {}
    for (op, raw), out in zip(calls, run.outcomes, strict=True):
        if out.raised is not None:
            continue
        values = {
            p.name: (env_by_ref[a.index] if isinstance(a, Ref) else a)
            for p, a in zip(runner.ops[op].params, raw, strict=True)
        }
        result = normalize(out.value, judge.signature.returns)
        hit = _count_hit(runner.engine.evaluator, c.count, values, result, judge)
        if hit is None:
            continue
        key = values.get(c.count.per) if c.count.per else None
        counted[_ref_key(key)] = counted.get(_ref_key(key), 0) + (1 if hit else 0)
    worst = max(counted.values(), default=0)
    if not c.holds(worst):
        return f"{c.describe()} broken: the count reached {worst}"
    return None


def _failure(
    runner: _SystemRunner, c: _CountCheck, prefix: list[_CallRecord], calls: _Calls,
    run: Interleaving, why: str,
) -> dict[str, Any]:
    """The counterexample of an interleaving that broke the invariant."""
    o = c.obligation
    schedule, trace = run.schedule, run.trace
    if not runner.engine.options.verbose:  # bytecode instructions only when asked for
        from ..inside import explorer

        schedule, trace = explorer.plain(schedule), explorer.plain(trace)
    lines = [f"{runner.name}() -> s"]
    lines += [f"{r.text()}" for r in prefix]
    for i, ((op, raw), out) in enumerate(zip(calls, run.outcomes, strict=True)):
        shown = ", ".join(
            f"{p.name}=" + (prefix[a.index].name if isinstance(a, Ref) else describe(a))
            for p, a in zip(runner.ops[op].params, raw, strict=True)
        )
        lines.append(f"thread {i + 1}: s.{op}({shown}) -> {describe_outcome(out)}")
    message = (
        f"{o.id}" + (f' "{o.text}"' if o.text else "")
        + f" ({o.file}:{o.line}) failed under concurrency\n  calls:    "
        + "\n            ".join(lines)
        + f"\n  schedule: {schedule}\n  got:      {why}\n"
        f"  required: {c.describe()}"
        + (f"\n  interleaving:\n{_indent(trace, 4)}" if trace else "")
    )
    return {
        "concurrent": True,
        "calls": lines,
        "schedule": schedule,
        "trace": trace,
        "got": why,
        "required": c.describe(),
        "message": message,
    }


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())
