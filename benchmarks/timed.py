"""Timed checking at depth K = 10, 20, 50 against a plain z3py unrolling of the same constraints.

Run as ``python benchmarks/timed.py [--depths 10 20 50] [--repeat 3]``.

For each bundled timed example (``examples/timed_fsm.req``, ``timed_mixer.req``,
``timed_autopilot.req``) and each depth K, both sides answer the same two questions in
this process:

- **derivative**: ``api.check_timed`` on the loaded spec (unrolling, the untimed
  checker's consistency question with its re-check by the evaluator, the clairvoyant
  realizability game, the input-trace question that finds the minimal core, and the
  causal game when nothing failed before it; certificates excluded, as the baseline
  has none);
- **z3py baseline**: the same requirements written by hand below as z3py terms over
  one constant per signal and step (its own unrolling, with the same weak-end
  semantics), then ``Solver.check`` for consistency and, for realizability,
  ``exists inputs: forall outputs: not requirements`` with the default solver.

The verdicts must agree (consistent or not; realizable or not); the script prints both
times (best of ``--repeat``) and the ratio derivative / baseline.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import z3

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from derivative import api
from derivative.timed import TimedOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------- the baseline


def _within(k: int, t: int, n: int, resp: Callable[[int], Any]) -> Any:
    if t + n >= k:
        return z3.BoolVal(True)
    return z3.Or([resp(s) for s in range(t, t + n + 1)])


def _for(k: int, t: int, n: int, resp: Callable[[int], Any]) -> Any:
    return z3.And([resp(s) for s in range(t, min(t + n, k - 1) + 1)])


def _next(k: int, t: int, resp: Callable[[int], Any]) -> Any:
    return z3.BoolVal(True) if t + 1 >= k else resp(t + 1)


_SORTS = iter(range(1_000_000))


def _sort_name(stem: str) -> str:
    """A fresh enum sort name: z3py refuses to declare one name twice in its context."""
    return f"{stem}{next(_SORTS)}"


def _upon(c: Sequence[Any], t: int) -> Any:
    return c[t] if t == 0 else z3.And(c[t], z3.Not(c[t - 1]))


def fsm(k: int, planted: bool = True) -> tuple[list[Any], list[Any], list[Any]]:
    state_sort, (transition, nominal, maneuver, standby) = z3.EnumSort(
        _sort_name("State"), ["transition", "nominal", "maneuver", "standby"])
    st = [z3.Const(f"state_{t}", state_sort) for t in range(k)]
    req = [z3.Bool(f"standby_req_{t}") for t in range(k)]
    fail = [z3.Bool(f"apfail_{t}") for t in range(k)]
    good = [z3.Bool(f"good_{t}") for t in range(k)]
    nom = [st[t] == nominal for t in range(k)]
    reqs: list[Any] = [st[0] == transition]
    for t in range(k):
        reqs.append(z3.Implies(z3.And(fail[t], st[t] != nominal),
                               _next(k, t, lambda s: st[s] == maneuver)))
        reqs.append(z3.Implies(_upon(nom, t), _for(k, t, 2, lambda s: nom[s])))
        reqs.append(z3.Implies(z3.And(st[t] == transition, good[t], z3.Not(fail[t])),
                               _next(k, t, lambda s: nom[s])))
        if t > 0:
            reqs.append(z3.Implies(st[t - 1] == maneuver,
                                   z3.Or(st[t] == maneuver, st[t] == standby)))
        if planted:  # FSM6
            reqs.append(z3.Implies(z3.And(nom[t], req[t]),
                                   _next(k, t, lambda s: st[s] == standby)))
    return reqs, [*req, *fail, *good], st


def mixer(k: int, planted: bool = True) -> tuple[list[Any], list[Any], list[Any]]:
    start = [z3.Bool(f"start_{t}") for t in range(k)]
    em = [z3.Bool(f"emergency_{t}") for t in range(k)]
    level = [z3.Int(f"level_{t}") for t in range(k)]
    vi = [z3.Bool(f"valve_in_{t}") for t in range(k)]
    vo = [z3.Bool(f"valve_out_{t}") for t in range(k)]
    stir = [z3.Bool(f"stirring_{t}") for t in range(k)]
    go = [z3.And(start[t], z3.Not(z3.Or(em[max(0, t - 3): t + 1]))) for t in range(k)]
    reqs: list[Any] = []
    for t in range(k):
        reqs.append(z3.Not(z3.And(vi[t], vo[t])))
        reqs.append(z3.Implies(_upon(go, t), _within(k, t, 2, lambda s: vi[s])))
        reqs.append(z3.Implies(_upon(em, t),
                               _for(k, t, 3, lambda s: z3.And(z3.Not(vi[s]), z3.Not(vo[s])))))
        reqs.append(z3.Implies(stir[t], z3.And(vi[t], z3.Not(vo[t]))))
        if planted:  # MX5
            until = [z3.Implies(z3.And([level[u] < 90 for u in range(t, s + 1)]), vi[s])
                     for s in range(t, k)]
            reqs.append(z3.Implies(_upon(go, t), z3.And(until)))
    ranges = [z3.And(level[t] >= 0, level[t] <= 100) for t in range(k)]
    return reqs + ranges, [*start, *em, *level], [*vi, *vo, *stir]


def autopilot(k: int, planted: bool = True) -> tuple[list[Any], list[Any], list[Any]]:
    mode_sort, (off, alt_hold, _climb) = z3.EnumSort(
        _sort_name("Mode"), ["off", "alt_hold", "climb"])
    mode = [z3.Const(f"mode_{t}", mode_sort) for t in range(k)]
    climb = [z3.Int(f"climb_rate_{t}") for t in range(k)]
    engage = [z3.Bool(f"engage_{t}") for t in range(k)]
    target = [z3.Bool(f"new_target_{t}") for t in range(k)]
    reqs: list[Any] = [mode[0] == off]
    for t in range(k):
        reqs.append(z3.Implies(_upon(engage, t), _next(k, t, lambda s: mode[s] == alt_hold)))
        reqs.append(z3.Implies(mode[t] == alt_hold, climb[t] == 0))
        if planted:  # AP4
            reqs.append(z3.Implies(target[t], _within(k, t, 1, lambda s: climb[s] > 0)))
        reqs.append(z3.Implies(mode[t] == off, climb[t] == 0))
        reqs.append(z3.And(climb[t] >= -20, climb[t] <= 20))
    return reqs, [*engage, *target], [*mode, *climb]


BASELINES: dict[str, Callable[[int, bool], tuple[list[Any], list[Any], list[Any]]]] = {
    "timed_fsm": fsm, "timed_mixer": mixer, "timed_autopilot": autopilot,
}
PLANTED = {"timed_fsm": "FSM6", "timed_mixer": "MX5", "timed_autopilot": "AP4"}


def baseline(name: str, k: int, planted: bool) -> tuple[bool, bool | None]:
    """(consistent, realizable) by plain z3py; realizable is None when undecided."""
    reqs, inputs, outputs = BASELINES[name](k, planted)
    s = z3.Solver()
    s.add(reqs)
    consistent = s.check() == z3.sat
    if not consistent:
        return False, None
    # the inputs' ranges are the only requirements over inputs alone (mixer's level)
    input_ranges = [r for r in reqs if _only_over(r, inputs)]
    rest = [r for r in reqs if not _only_over(r, inputs)]
    g = z3.Solver()
    g.set("timeout", 120_000)  # a wall-clock guard only: an undecided game is None
    g.add(input_ranges)
    g.add(z3.ForAll(outputs, z3.Not(z3.And(rest))))
    answer = g.check()
    return True, None if answer == z3.unknown else answer == z3.unsat


def _only_over(term: Any, names: Sequence[Any]) -> bool:
    wanted = {str(n) for n in names}
    seen: set[str] = set()
    todo = [term]
    while todo:
        x = todo.pop()
        if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            seen.add(str(x))
        todo.extend(x.children())
    return bool(seen) and seen <= wanted


# --------------------------------------------------------------------------- measuring


def _spec(name: str, planted: bool) -> api.LoadedContract:
    """The example, or without its planted requirement's line."""
    path = os.path.join(ROOT, "examples", f"{name}.req")
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    if not planted:
        lines = [x for x in lines if not x.lstrip().startswith(f"requirement {PLANTED[name]} ")]
    return api.parse_text("".join(lines), path)


def ours(loaded: api.LoadedContract, k: int) -> tuple[bool, bool | None]:
    (r,) = api.check_timed(loaded, TimedOptions(depth=k))
    if r.kind == "inconsistent":
        return False, None
    if r.status == "unknown":
        return True, None
    return True, r.kind not in ("unrealizable",)


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--depths", type=int, nargs="+", default=[10, 20, 50])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    print(f"{'example':16} {'variant':8} {'K':>3} {'derivative s':>13} {'z3py s':>9} "
          f"{'ratio':>7}  verdicts")
    worst = 0.0
    for name in BASELINES:
        for planted in (True, False):
            loaded = _spec(name, planted)
            for k in args.depths:
                t_ours, v_ours = _best(lambda k=k, sp=loaded: ours(sp, k), args.repeat)
                t_base, v_base = _best(lambda n=name, k=k, p=planted: baseline(n, k, p),
                                       args.repeat)
                agree = v_ours[0] == v_base[0] and (
                    v_ours[1] is None or v_base[1] is None or v_ours[1] == v_base[1])
                ratio = t_ours / t_base if t_base > 0 else float("inf")
                worst = max(worst, ratio)
                shown = f"consistent={v_ours[0]} realizable={v_ours[1]}"
                variant = "planted" if planted else "fixed"
                print(f"{name:16} {variant:8} {k:>3} {t_ours:>13.3f} {t_base:>9.3f} "
                      f"{ratio:>7.2f}  {shown}"
                      + ("" if agree else f"  DISAGREE: baseline {v_base}"), flush=True)
                if not agree:
                    return 1
    print(f"worst ratio derivative / z3py: {worst:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
