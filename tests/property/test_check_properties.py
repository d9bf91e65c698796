"""Properties of ``check`` on random requirement sets with a known answer.

- A random set of difference constraints ``x_i - x_j <= c`` built to hold at a hidden
  model is feasible, and the witness satisfies every requirement when the
  *evaluator* (not the solver) reads it.
- The same kind of set plus a planted contradiction over fresh variables (a negative
  cycle ``y1 - y2 <= c1, y2 - y3 <= c2, ..., yk - y1 <= ck`` with ``sum(c) < 0``, minimal
  by construction: drop any edge and a path remains, which is satisfiable) gives
  exactly the planted obligations as the core.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derivative import api
from derivative._eval import Evaluator
from derivative.solver import check

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def feasible_lines(draw: st.DrawFn, prefix: str = "x") -> tuple[list[str], list[str]]:
    """(param names, requirement expressions) that hold at a hidden model."""
    n = draw(st.integers(2, 5))
    names = [f"{prefix}{i}" for i in range(n)]
    model = {v: draw(st.integers(-50, 50)) for v in names}
    exprs = []
    for _ in range(draw(st.integers(1, 8))):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        slack = draw(st.integers(0, 5))
        c = model[a] - model[b] + slack
        exprs.append(f"{a} - {b} <= {c}")
    return names, exprs


def _spec(names: list[str], exprs: list[tuple[str, str]]) -> str:
    lines = ["spec random version 1"]
    lines += [f"param {v}: int" for v in names]
    lines += [f"requirement {rid}: {e}" for rid, e in exprs]
    return "\n".join(lines) + "\n"


@SETTINGS
@given(feasible_lines())
def test_random_feasible_sets_get_a_witness_the_evaluator_accepts(
    data: tuple[list[str], list[str]],
) -> None:
    names, exprs = data
    reqs = [(f"R{i}", e) for i, e in enumerate(exprs)]
    loaded = api.parse_text(_spec(names, reqs), "random.req")
    result = check(loaded.contract, loaded.types)
    assert result.status == "feasible", result.reason
    assert result.witness is not None
    ev = Evaluator()
    for ob in loaded.contract.obligations:
        assert ev.holds(ob.expr, dict(result.witness.params)) is True, ob.id


@st.composite
def negative_cycles(draw: st.DrawFn) -> list[str]:
    k = draw(st.integers(2, 4))
    ys = [f"y{i}" for i in range(k)]
    cs = [draw(st.integers(-20, 20)) for _ in range(k - 1)]
    cs.append(-sum(cs) - draw(st.integers(1, 10)))  # the cycle's total is negative
    return [f"{ys[i]} - {ys[(i + 1) % k]} <= {cs[i]}" for i in range(k)]


@SETTINGS
@given(feasible_lines(), negative_cycles(), st.randoms(use_true_random=False))
def test_a_planted_contradiction_is_exactly_the_core(
    data: tuple[list[str], list[str]], cycle: list[str], rnd: object
) -> None:
    names, exprs = data
    reqs = [(f"R{i}", e) for i, e in enumerate(exprs)]
    planted = [(f"P{i}", e) for i, e in enumerate(cycle)]
    mixed = reqs + planted
    rnd.shuffle(mixed)  # type: ignore[attr-defined]
    ys = sorted({w for _, e in planted for w in e.split() if w.startswith("y")})
    loaded = api.parse_text(_spec(names + ys, mixed), "random.req")
    result = check(loaded.contract, loaded.types)
    assert result.status == "infeasible_proven", result.reason
    core = result.cores[0]
    assert set(core.ids) == {rid for rid, _ in planted}
    assert core.minimal and core.rechecked
    # Minimality is checkable by evaluation alone: each model satisfies the others.
    ev = Evaluator()
    members = {m.id: m for m in core.members}
    assert {w for w, _ in core.minimality} == set(members)
    for without, model in core.minimality:
        for mid, m in members.items():
            if mid != without:
                assert ev.holds(m.expr, dict(model)) is True
