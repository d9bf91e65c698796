"""The solver's fast paths must give exactly what the plain algorithms give.

``check`` takes shortcuts for speed (``benchmarks/check_scale.py``,
``benchmarks/all_cores.py``): terms built through Z3's C API, deletion in a solver
of its own for a large question, deletion steps settled by models already seen,
growing by a disjunction, one fresh solver re-checking all of a component's cores,
the garbage collector paused.  Each test pins one of them against a reference
computed another way (z3py's operators, brute force over subsets, the evaluator).
"""

from __future__ import annotations

import gc
import itertools
import random
from collections.abc import Iterator

import pytest
import z3

from derivative import api
from derivative._ast import Obligation
from derivative._eval import Evaluator
from derivative._gcpause import collector_paused
from derivative._types import INT
from derivative._walk import free_names, walk
from derivative.solver import CheckOptions, CheckResult, check
from derivative.solver import _question as question_mod
from derivative.solver._encode import Encoder
from derivative.solver._question import Member, Question, names_of
from derivative.solver._terms import Term, var
from derivative.solver._z3util import Z, fresh_context


def run(text: str, **options: object) -> CheckResult:
    loaded = api.parse_text(text, "spec.req")
    return check(loaded.contract, loaded.types, CheckOptions(**options))  # type: ignore[arg-type]


def requirements(text: str) -> list[Obligation]:
    loaded = api.parse_text(text, "spec.req")
    return [o for o in loaded.contract.obligations if o.kind == "requirement"]


# --------------------------------------------------------------------------- terms


class PlainEncoder(Encoder):
    """The encoder with z3py's operators, as it was before the C API shortcuts."""

    def _arith(self, op: str, a: Z, b: Z) -> Z:
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b}[op]()

    def _order(self, op: str, a: Z, b: Z) -> Z:
        table = {"<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b}
        return table.get(op, lambda: a >= b)()


ARITH_SPEC = """spec s version 1
param x: int
param y: int
param r: real
param d: date
requirement A1: x - y <= 3
requirement A2: x >= 1
requirement A3: 1 < x
requirement A4: x + 2 * y > r
requirement A5: r >= 1
requirement A6: r <= x
requirement A7: 0 <= x <= 10 < y
requirement A8: d + 3 >= d
requirement A9: x * x >= 0
requirement A10: -x < 5
requirement A11: x > -2.5
requirement A12: 2.5 >= r - x
requirement A13: d - date("2020-01-01") > x
requirement A14: 3 > 2
"""


def test_terms_built_through_the_c_api_are_the_terms_z3py_builds() -> None:
    obligations = requirements(ARITH_SPEC)
    loaded = api.parse_text(ARITH_SPEC, "spec.req")
    with fresh_context():
        env = {n: var(n, t) for n, t in loaded.types.param_types.items()}
        fast, plain = Encoder(env), PlainEncoder(env)
        for ob in obligations:
            a, b = fast.encode(ob.expr), plain.encode(ob.expr)
            # Same AST (Z3 hash-conses: equal terms are the same node), so the same
            # ids, the same search and the same models as before the shortcut.
            assert a.value.eq(b.value), (ob.id, a.value.sexpr(), b.value.sexpr())
            assert a.defined.eq(b.defined), ob.id
            assert a.holds.get_id() == b.holds.get_id(), ob.id


def test_a_numeral_on_the_right_is_mirrored_as_python_does_for_z3py() -> None:
    with fresh_context():
        x = var("x", INT).value
        one = z3.IntVal(1, x.ctx)
        enc = Encoder({})
        assert enc._order(">=", x, one).sexpr() == (x >= one).sexpr() == "(<= 1 x)"
        assert enc._order("<", one, x).sexpr() == (one < x).sexpr() == "(< 1 x)"


def test_names_of_reads_free_names_and_result_in_one_pass() -> None:
    text = """spec s version 1
param n: int
param xs: list[int]
requirement A: forall i in 0..n: i + n >= 0
requirement B: all(v > n for v in xs) and exists j in 0..3: j == n
requirement C: any(n < v for v in [1, 2]) or (forall n in 0..2: n >= 0)
function f(a: int) -> int
    ensures: result >= a and all(a < v for v in [result, 2])
"""
    loaded = api.parse_text(text, "spec.req")
    checked = 0
    for ob in loaded.contract.obligations:
        expected = set(free_names(ob.expr))
        if any(node.kind == "result" for node in walk(ob.expr)):
            expected.add("result")
        assert names_of(ob) == frozenset(expected), ob.id
        checked += 1
    assert checked >= 4


# --------------------------------------------------------------------------- members


def _question(formulas: list[Z], obligations: list[Obligation]) -> Question:
    members = [Member(o, f, frozenset()) for o, f in zip(obligations, formulas, strict=True)]
    return Question("q", members, [], {}, rlimit=0, timeout_ms=60_000)


def test_members_compare_by_identity_and_are_hashable() -> None:
    obs = requirements("spec s version 1\nparam x: int\nrequirement A: x > 1\n")
    with fresh_context():
        x = var("x", INT).value
        a = Member(obs[0], x > 1, frozenset({"x"}))
        b = Member(obs[0], x > 1, frozenset({"x"}))
        assert a != b and a == a
        assert len({a, b}) == 2
        assert a.key != b.key  # each member its own literal
        lazy = Member(obs[0], x > 1, lambda: frozenset({"x"}))
        assert lazy.names == frozenset({"x"})


# --------------------------------------------------------------------------- re-checks


def test_recheck_all_accepts_cores_only_when_each_is_unsat() -> None:
    text = "spec s version 1\nparam x: int\n" + "".join(
        f"requirement R{i}: x > {i}\n" for i in range(4)
    )
    obs = requirements(text)
    with fresh_context():
        x = var("x", INT).value
        q = _question([x > 5, x < 3, x < 1, x > 0], obs)
        m = q.members
        assert q.recheck_all([[m[0], m[1]], [m[0], m[2]]]) == [True, True]
        # A "core" that is satisfiable ({x > 0, x > 5}) must not pass with the others.
        assert q.recheck_all([[m[0], m[1]], [m[3], m[0]], [m[2], m[3]]]) == [True, False, True]
        # With a hard constraint that makes everything unsat, every set passes.
        assert q.recheck_all([[m[3]], [m[0]]], extra=[x < -10]) == [True, True]


# --------------------------------------------------------------------------- deletion apart


def _sheet(n: int, seed: int = 3) -> tuple[str, set[str]]:
    """``n`` difference constraints satisfied by a hidden point, plus a 4-cycle."""
    rnd = random.Random(seed)
    names = [f"p{i}" for i in range(max(8, n // 4))]
    hidden = {p: rnd.randrange(0, 100) for p in names}
    lines = ["spec sheet version 1"] + [f"param {p}: int in 0..100" for p in names]
    lines += [f"param q{j}: int" for j in range(4)]
    planted: set[str] = set()
    for k in range(n):
        if k % (n // 4) == 1 and len(planted) < 4:
            j = len(planted)
            lines.append(f"requirement L{k}: q{j} - q{(j + 1) % 4} <= -1")
            planted.add(f"L{k}")
            continue
        a, b = rnd.sample(names, 2)
        lines.append(f"requirement L{k}: {a} - {b} <= {hidden[a] - hidden[b] + rnd.randrange(5)}")
    return "\n".join(lines) + "\n", planted


def test_a_large_question_shrinks_apart_to_the_same_minimal_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, planted = _sheet(400)
    apart = run(text)
    # The same question with deletion forced into the question's own solver.
    monkeypatch.setattr(question_mod, "APART_MIN_MEMBERS", 10**9)
    together = run(text)
    for result in (apart, together):
        assert result.status == "infeasible_proven"
        core = result.cores[0]
        assert set(core.ids) == planted
        assert core.minimal and core.rechecked
    # Every minimality model satisfies every other member (plain evaluation).
    ev = Evaluator()
    core = apart.cores[0]
    members = {m.id: m for m in core.members}
    assert {w for w, _ in core.minimality} == planted
    for without, model in core.minimality:
        for mid, m in members.items():
            if mid != without:
                assert ev.holds(m.expr, model) is True, (without, mid)


def test_the_apart_rule_needs_a_large_question_and_a_small_core() -> None:
    obs = requirements(
        "spec s version 1\nparam x: int\n"
        + "".join(f"requirement R{i}: x > {i}\n" for i in range(300))
    )
    with fresh_context():
        x = var("x", INT).value
        q = _question([x > i for i in range(300)], obs)
        assert q._apart(5)
        assert not q._apart(300 // question_mod.APART_RATIO + 1)
        small = _question([x > 1, x < 0], obs[:2])
        assert not small._apart(2)


def test_a_core_without_models_is_the_same_core_and_reads_no_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``minimal_core(models=False)`` (a warning's core) finds the same members and never
    reads a model of the deletion's sat answers; with models, each necessary member has
    its minimality model."""
    obs = requirements(
        "spec s version 1\nparam x: int\nparam y: int\n"
        + "".join(f"requirement R{i}: x > {i}\n" for i in range(6))
        + "requirement A: y > x\nrequirement B: y < 2\nrequirement C: y >= 0\n"
    )
    with fresh_context():
        x, y = var("x", INT).value, var("y", INT).value
        formulas = [x > i for i in range(6)] + [y > x, y < 2, y >= 0]
        reads: list[bool] = []
        real = question_mod._check_assuming

        def spy(solver: Z, members: object, extra: object = (), model: bool = True) -> object:
            ans = real(solver, members, extra, model)  # type: ignore[arg-type]
            reads.append(ans.verdict == "sat" and ans.model is not None)
            return ans

        monkeypatch.setattr(question_mod, "_check_assuming", spy)
        with_models = _question(formulas, obs).minimal_core()
        assert with_models is not None and any(reads)
        reads.clear()
        without = _question(formulas, obs).minimal_core(models=False)
        assert without is not None and not any(reads)
        ids = [m.ob.id for m in without.members]
        assert ids == [m.ob.id for m in with_models.members]
        assert len(ids) == 3 and ids[0].startswith("R") and ids[1:] == ["A", "B"]
        assert without.models == () and without.minimal and without.rechecked
        assert [m.ob.id for m, _ in with_models.models] == ids


# --------------------------------------------------------------------------- enumeration


def _cluster(seed: int, lows: int, upx: int, upy: int) -> tuple[str, list[str]]:
    rnd = random.Random(seed)
    rows: list[str] = []
    ids: list[str] = []
    for i in range(lows):
        ids.append(f"LO{i}")
        rows.append(f"requirement LO{i}: x >= {rnd.randrange(30, 70)}")
    for m in range(upx):
        ids.append(f"UX{m}")
        rows.append(f"requirement UX{m}: x <= {rnd.randrange(20, 60)}")
    ids.append("LINK")
    rows.append(f"requirement LINK: y - x >= {rnd.randrange(0, 10)}")
    for k in range(upy):
        ids.append(f"UY{k}")
        rows.append(f"requirement UY{k}: y <= {rnd.randrange(30, 75)}")
    return "spec c version 1\nparam x: int\nparam y: int\n" + "\n".join(rows) + "\n", ids


def _brute_force(text: str, ids: list[str]) -> tuple[set[frozenset[str]], set[frozenset[str]]]:
    """Every minimal unsat subset and minimal correction set, by checking every subset."""
    by_id = {o.id: o for o in requirements(text)}
    loaded = api.parse_text(text, "spec.req")
    sat: dict[frozenset[str], bool] = {}
    with fresh_context():
        env = {n: var(n, t) for n, t in loaded.types.param_types.items()}
        enc = Encoder(env)
        formulas = {i: enc.encode(by_id[i].expr).holds for i in ids}
        for k in range(len(ids) + 1):
            for subset in itertools.combinations(ids, k):
                s = z3.Solver(ctx=next(iter(formulas.values())).ctx)
                for i in subset:
                    s.add(formulas[i])
                sat[frozenset(subset)] = s.check() == z3.sat
    every = frozenset(ids)
    muses = {s for s, ok in sat.items() if not ok and all(sat[s - {i}] for i in s)}
    msses = {s for s, ok in sat.items() if ok and all(not sat[s | {i}] for i in every - s)}
    return muses, {every - s for s in msses}


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_all_cores_and_corrections_are_exactly_those_of_brute_force(seed: int) -> None:
    text, ids = _cluster(seed, lows=3, upx=2, upy=2)
    muses, mcses = _brute_force(text, ids)
    result = run(text, all_cores=True)
    assert result.status == "infeasible_proven"
    assert not result.unknowns
    assert {frozenset(c.ids) for c in result.cores} == muses
    assert {frozenset(c.ids) for c in result.corrections} == mcses
    ev = Evaluator()
    for core in result.cores:
        assert core.minimal and core.rechecked
        members = {m.id: m for m in core.members}
        assert {w for w, _ in core.minimality} == set(members)
        for without, model in core.minimality:
            for mid, m in members.items():
                if mid != without:
                    assert ev.holds(m.expr, model) is True, (core.ids, without, mid)


def test_grow_reaches_a_maximal_satisfiable_subset_beyond_the_seed_model() -> None:
    obs = requirements(
        "spec s version 1\nparam x: int\n"
        + "".join(f"requirement R{i}: x > {i}\n" for i in range(5))
    )
    with fresh_context():
        x = var("x", INT).value
        # The seed {x >= 0} has models where none of the others holds (x = 0).
        q = _question([x >= 0, x == 5, x == 7, x > 100, x >= 6], obs)
        seed = [q.members[0]]
        first = q.check(seed, [x == 0])
        assert first.verdict == "sat"
        grown = q._grow(seed, q.members, (), first.model, [])
        assert grown is not None
        kept = [m for m in q.members if id(m) in grown]
        assert q.members[0] in kept
        assert q.check(kept).verdict == "sat"
        for m in q.members:
            if id(m) not in grown:
                assert q.check([*kept, m]).verdict == "unsat", m
        assert len(kept) >= 2


def test_cores_and_corrections_are_listed_in_spec_order() -> None:
    text, ids = _cluster(1, lows=3, upx=2, upy=2)
    result = run(text, all_cores=True)
    position = {i: k for k, i in enumerate(ids)}

    def rank(group: tuple[str, ...]) -> list[int]:
        return sorted(position[i] for i in group)

    assert [rank(c.ids) for c in result.cores] == sorted(rank(c.ids) for c in result.cores)
    corrections = [rank(c.ids) for c in result.corrections]
    assert corrections == sorted(corrections)


def test_an_enumeration_that_cannot_recheck_together_rechecks_each_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    original = Question.recheck

    def counting(self: Question, members: object, extra: object = ()) -> bool:
        calls.append(1)
        return original(self, members, extra)  # type: ignore[arg-type]

    monkeypatch.setattr(Question, "recheck", counting)
    text, _ = _cluster(2, lows=3, upx=2, upy=2)
    result = run(text, all_cores=True)
    assert len(result.cores) > 1 and all(c.rechecked for c in result.cores)
    assert calls == []  # one fresh solver re-checked them all at once

    def never_unsat(self: Question, cores: object, extra: object = ()) -> list[bool]:
        return [self.recheck(c, extra) for c in cores]  # type: ignore[attr-defined,arg-type]

    monkeypatch.setattr(Question, "recheck_all", never_unsat)
    again = run(text, all_cores=True)
    assert [c.ids for c in again.cores] == [c.ids for c in result.cores]
    assert len(calls) == len(result.cores)


# --------------------------------------------------------------------------- collector


@pytest.fixture
def gc_state() -> Iterator[None]:
    was = gc.isenabled()
    try:
        yield
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


@pytest.mark.usefixtures("gc_state")
def test_the_collector_is_paused_during_a_check_and_restored_after() -> None:
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # a caller's choice is kept
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


@pytest.mark.usefixtures("gc_state")
def test_check_leaves_the_collector_as_it_found_it() -> None:
    gc.enable()
    seen: list[bool] = []
    original = Term.__init__

    def spy(self: Term, *args: object, **kwargs: object) -> None:
        seen.append(gc.isenabled())
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    try:
        Term.__init__ = spy  # type: ignore[method-assign]
        result = run("spec s version 1\nparam x: int\nrequirement A: x > 1\n")
    finally:
        Term.__init__ = original  # type: ignore[method-assign]
    assert result.status == "feasible"
    assert seen and not any(seen)
    assert gc.isenabled()


def test_truth_values_are_decoded_through_the_c_api_as_z3py_reads_them() -> None:
    from derivative._types import BOOL
    from derivative.solver._decode import from_model

    with fresh_context():
        a, b, c = (var(n, BOOL).value for n in "abc")
        s = z3.Solver(ctx=a.ctx)
        s.add(a, z3.Not(b))
        assert s.check() == z3.sat
        model = s.model()
        for term, want in ((a, True), (b, False), (c, False), (z3.And(a, z3.Not(b)), True)):
            got = from_model(model, term, BOOL)
            assert got is want
            assert got is bool(z3.is_true(model.eval(term, model_completion=True)))
