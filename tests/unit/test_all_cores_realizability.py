"""``--all-cores`` on realizability: every minimal conflict, whatever input shows it.

The property plants conflicts in ``f(x: int in 0..9) -> int`` that show only at
``x == k`` for different ``k`` (pairs and triples of ensures guarded by ``x == k``,
and ensures that clash with one unguarded bound at several inputs), shuffles the
clauses, and checks that the cores listed are exactly the planted ones, each with an
input that shows it, and that the corrections are exactly their minimal hitting sets.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from derivative import api
from derivative._eval import Evaluator
from derivative.solver import CheckOptions, CheckResult

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "check"


@dataclass(frozen=True)
class Planted:
    """A spec's ensures (id, text) and the conflicts planted in it."""

    clauses: tuple[tuple[str, str], ...]
    cores: frozenset[frozenset[str]]

    def spec(self) -> str:
        lines = ["spec planted version 1", "function f(x: int in 0..9) -> int"]
        lines += [f"    ensures {i}: {text}" for i, text in self.clauses]
        return "\n".join(lines) + "\n"


def _group(k: int, shape: str) -> tuple[list[tuple[str, str]], list[frozenset[str]]]:
    """Clauses conflicting only at ``x == k`` (values far from every other group's)."""
    c = 100 * k + 50
    at = f"x == {k} implies"
    if shape == "pair":
        clauses = [(f"P{k}a", f"{at} result > {c}"), (f"P{k}b", f"{at} result < {c}")]
        return clauses, [frozenset(i for i, _ in clauses)]
    if shape == "triple":  # any two can hold together, not all three
        clauses = [
            (f"T{k}a", f"{at} result >= {c}"),
            (f"T{k}b", f"{at} result <= {c + 1}"),
            (f"T{k}c", f"{at} result != {c} and result != {c + 1}"),
        ]
        return clauses, [frozenset(i for i, _ in clauses)]
    # "shared": clashes with the unguarded bound G (result < 10_000) only at x == k
    return [(f"S{k}", f"{at} result > 10000 + {c}")], [frozenset({f"S{k}", "G"})]


@st.composite
def planted(draw: st.DrawFn) -> Planted:
    ks = draw(st.lists(st.integers(0, 9), min_size=2, max_size=4, unique=True))
    shapes = draw(
        st.lists(
            st.sampled_from(["pair", "triple", "shared"]), min_size=len(ks), max_size=len(ks)
        )
    )
    clauses: list[tuple[str, str]] = [("N", "result >= 0")]  # in no conflict
    cores: list[frozenset[str]] = []
    for k, shape in zip(ks, shapes, strict=True):
        more, planted_cores = _group(k, shape)
        clauses += more
        cores += planted_cores
    if "shared" in shapes:
        clauses.append(("G", "result < 10000"))
    order = draw(st.permutations(clauses))
    return Planted(tuple(order), frozenset(cores))


def _minimal_hitting_sets(cores: frozenset[frozenset[str]]) -> set[frozenset[str]]:
    universe = sorted(set().union(*cores))
    hitting = [
        frozenset(s)
        for n in range(len(universe) + 1)
        for s in itertools.combinations(universe, n)
        if all(core & set(s) for core in cores)
    ]
    return {h for h in hitting if not any(o < h for o in hitting)}


def _check(text: str, **options: object) -> CheckResult:
    return api.check(api.parse_text(text), CheckOptions(**options))  # type: ignore[arg-type]


def _shows(result: CheckResult) -> None:
    """Each core is listed with an input at which it shows: the ``k`` its guarded members
    name (a core of ``G`` and ``S{k}`` shows only at ``x == k``), valid for ``f``; and
    its minimality models give, for each member, a result meeting all the others there."""
    ev = Evaluator({})
    for core in result.cores:
        assert core.witness_input is not None
        x = core.witness_input["x"]
        assert {int(i[1]) for i in core.ids if i[0] in "PTS"} == {x}, (core.ids, x)
        assert [m for m, _ in core.minimality] == list(core.ids)
        for dropped, model in core.minimality:
            env = {"x": x, **model}
            others = [m for m in core.members if m.id != dropped]
            assert all(ev.holds(m.expr, env) is True for m in others), (core.ids, dropped)


@settings(max_examples=12)
@given(planted())
def test_all_cores_finds_every_planted_conflict_at_its_own_input(p: Planted) -> None:
    result = _check(p.spec(), all_cores=True)
    assert result.status == "infeasible_proven"
    assert result.unknowns == ()
    assert all(c.kind == "unrealizable" and c.minimal and c.rechecked for c in result.cores)
    assert {frozenset(c.ids) for c in result.cores} == p.cores
    assert len(result.cores) == len(p.cores)
    _shows(result)
    assert {frozenset(c.ids) for c in result.corrections} == _minimal_hitting_sets(p.cores)
    assert all(c.subject == "f" for c in result.corrections)


def test_default_mode_still_lists_one_core() -> None:
    """Without ``--all-cores`` the first conflict found is reported, as before."""
    groups = [_group(3, "pair"), _group(7, "pair")]
    clauses = tuple(c for more, _ in groups for c in more)
    result = _check(Planted(clauses, frozenset()).spec())
    assert len(result.cores) == 1
    assert result.corrections == ()


def test_max_cores_truncates_and_says_so() -> None:
    """A bound reached mid-enumeration lists the cores found and names the flag."""
    groups = [_group(k, "pair") for k in (1, 4, 8)]
    clauses = tuple(c for more, _ in groups for c in more)
    result = _check(Planted(clauses, frozenset()).spec(), all_cores=True, max_cores=2)
    assert len(result.cores) == 2
    notes = [u for u in result.unknowns if u.question == "f realizability (all cores)"]
    assert notes and notes[0].limits[0].flag == "--max-cores"
    assert "there may be more" in notes[0].reason


def test_a_correction_that_does_not_restore_realizability_is_never_listed() -> None:
    """Dropping FSM_008 alone left FSM_004/FSM_005 in conflict (issue 16): with every
    conflict known, no single clause is a correction, and every listed one works."""
    text = (
        "spec fsm version 1\n"
        "function g(s: int in 0..2, standby: bool, good: bool) -> int in 0..3\n"
        "    ensures A: s == 2 and standby and good implies result == 3\n"
        "    ensures B: s == 2 and good implies result == 0\n"
        "    ensures C: standby and good implies result == 3\n"
        "    ensures D: s == 0 and good implies result == 1\n"
    )
    result = _check(text, all_cores=True)
    assert {frozenset(c.ids) for c in result.cores} == {
        frozenset({"A", "B"}),
        frozenset({"B", "C"}),
        frozenset({"C", "D"}),
    }
    listed = {frozenset(c.ids) for c in result.corrections}
    assert listed == {frozenset({"B", "C"}), frozenset({"A", "C"}), frozenset({"B", "D"})}
    loaded = api.parse_text(text)
    for ids in listed:
        relaxed = api.check(loaded, CheckOptions(without=ids))
        assert relaxed.status == "feasible", (ids, relaxed.reason)
    assert api.check(loaded, CheckOptions(without=frozenset({"C"}))).status != "feasible"


def test_enumeration_work_truncates_and_says_so() -> None:
    """The work bound counts the oracle's questions: a tiny one stops after the first
    core, and the note names ``--enumeration-work``."""
    groups = [_group(k, "pair") for k in (1, 4, 8)]
    clauses = tuple(c for more, _ in groups for c in more)
    result = _check(Planted(clauses, frozenset()).spec(), all_cores=True, enumeration_work=1)
    assert 1 <= len(result.cores) < 3
    notes = [u for u in result.unknowns if u.question == "f realizability (all cores)"]
    assert notes and notes[0].limits[0].flag == "--enumeration-work"


def test_an_undecided_subset_stops_the_enumeration_and_says_so() -> None:
    """``strfn_make_id``: strings, found by result terms; the oracle cannot decide every
    subset.  What is listed stays real (the core, minimal at its input and certified as
    without ``--all-cores``; corrections that were re-decided), and the report says the
    enumeration stopped and that a smaller conflict elsewhere was not ruled out."""
    spec = GOLDEN / "strfn_make_id" / "spec.req"
    loaded = api.load(spec)
    result = api.check(loaded, CheckOptions(all_cores=True))
    assert [c.ids for c in result.cores] == [("E1", "E2", "E3")]
    assert result.cores[0].minimal
    questions = {u.question: u.reason for u in result.unknowns}
    assert "there may be more" in questions["make_id realizability (all cores)"]
    assert "make_id realizability (minimality)" in questions
    assert result.corrections
    for correction in result.corrections:
        relaxed = api.check(loaded, CheckOptions(without=frozenset(correction.ids)))
        assert not [c for c in relaxed.cores if c.subject == "make_id"], correction.ids
    assert api.certify(loaded, result).certificate is not None
