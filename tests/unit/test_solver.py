"""``derivative.solver.check``: one test per question, per warning, per output.

Each spec is small and written out in the test, so a failure reads on its own.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from derivative import api
from derivative._eval import Evaluator
from derivative._values import value_json
from derivative.solver import (
    CheckOptions,
    CheckResult,
    check,
    render_json,
    render_sarif,
    render_text,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(text: str, **options: object) -> CheckResult:
    loaded = api.parse_text(text, "spec.req")
    return check(loaded.contract, loaded.types, CheckOptions(**options))  # type: ignore[arg-type]


def _int(v: object) -> int:
    assert isinstance(v, int)
    return v


def ids(result: CheckResult, i: int = 0) -> set[str]:
    return set(result.cores[i].ids)


def warnings_of(result: CheckResult, kind: str) -> list[set[str]]:
    return [set(w.ids) for w in result.warnings if w.kind == kind]


# --------------------------------------------------------------------------- feasible


def test_password_policy_is_feasible_with_a_witness_the_evaluator_accepts() -> None:
    loaded = api.load([EXAMPLES / "password_policy.req"])
    result = check(loaded.contract, loaded.types)
    assert result.status == "feasible", result.reason
    assert result.witness is not None
    ev = Evaluator(loaded.types.const_values)
    params = dict(result.witness.params)
    for ob in loaded.contract.obligations:
        if ob.kind == "requirement":
            assert ev.holds(ob.expr, params) is True, ob.id
    lockout = params["lockout_minutes"]
    assert isinstance(lockout, int) and 0 <= lockout <= 1440
    strong = result.witness.functions["is_strong"]
    env = {**strong.input, "result": strong.result}
    for ob in loaded.contract.obligations_of("is_strong"):
        if ob.kind in ("requires", "ensures"):
            assert ev.holds(ob.expr, env) is True, ob.id
    assert set(result.witness.systems["TokenStore"]) == {"issue", "reset", "forget"}


def test_discount_example_is_feasible() -> None:
    loaded = api.load([EXAMPLES / "discount.req"])
    result = check(loaded.contract, loaded.types)
    assert result.status == "feasible", result.reason
    assert result.cores == ()


# --------------------------------------------------------------------------- 1. requirements


def test_inconsistent_requirements_gives_the_minimal_core() -> None:
    result = run(
        """spec s version 1
param x: int
param y: int
requirement A [source: ux] "at least ten": x >= 10
requirement B: y >= 0
requirement C: x <= 5
"""
    )
    assert result.status == "infeasible_proven"
    core = result.cores[0]
    assert core.kind == "inconsistent_requirements"
    assert set(core.ids) == {"A", "C"}
    assert core.minimal and core.rechecked
    # One model per member, in which every *other* member holds.
    ev = Evaluator()
    members = {m.id: m for m in core.members}
    assert {mid for mid, _ in core.minimality} == {"A", "C"}
    for without, model in core.minimality:
        for mid, m in members.items():
            if mid != without:
                assert ev.holds(m.expr, model) is True


def test_declared_ranges_are_obligations_with_ids() -> None:
    result = run(
        """spec s version 1
param lockout_minutes: int in 0..1440
requirement R: lockout_minutes > 2000
"""
    )
    assert result.status == "infeasible_proven"
    assert ids(result) == {"R", "lockout_minutes.range"}


def test_a_requirement_undefined_everywhere_is_a_conflict_on_its_own() -> None:
    result = run(
        """spec s version 1
param x: int
requirement U: x // 0 == 1
"""
    )
    assert result.status == "infeasible_proven"
    assert ids(result) == {"U"}
    assert "undefined" in result.cores[0].explanation


def test_short_circuit_makes_a_guarded_division_defined() -> None:
    result = run(
        """spec s version 1
param x: int
requirement G: x != 0 implies 10 // x >= 1
requirement H: x == 0 or x > 100
"""
    )
    assert result.status == "feasible", result.reason


def test_python_floor_division_and_modulo_for_negatives() -> None:
    result = run(
        """spec s version 1
param x: int
param y: int
requirement D: x == -7 // 2
requirement M: y == -7 % 2
requirement E: x == -4 and y == 1
"""
    )
    assert result.status == "feasible", result.reason
    assert result.witness is not None
    assert dict(result.witness.params) == {"x": -4, "y": 1}


def test_int_of_a_string_is_only_defined_on_digits() -> None:
    result = run(
        """spec s version 1
param s: str
requirement I: int(s) == -5
"""
    )
    assert result.status == "infeasible_proven"


def test_str_of_a_negative_number_has_its_sign() -> None:
    result = run(
        """spec s version 1
param n: int
requirement S: str(n) == "-12"
"""
    )
    assert result.status == "feasible", result.reason
    assert result.witness is not None and result.witness.params["n"] == -12


# --------------------------------------------------------------------------- 2. preconditions


def test_unsatisfiable_precondition() -> None:
    result = run(
        """spec s version 1
function g(x: int in 0..10) -> int
    requires P: x > 20
    ensures: result == x
"""
    )
    assert result.status == "infeasible_proven"
    core = result.cores[0]
    assert core.kind == "unsatisfiable_precondition"
    assert set(core.ids) == {"P", "g.x.range"}
    assert core.subject == "g"


# --------------------------------------------------------------------------- 3. examples


def test_example_contradicting_an_ensures() -> None:
    result = run(
        """spec s version 1
function f(x: int) -> int
    ensures E: result == x + 1
    example X: f(3) == 5
"""
    )
    core = result.cores[0]
    assert core.kind == "contradicting_example"
    assert set(core.ids) == {"X", "E"}
    assert dict(core.witness_input or {}) == {"x": 3}


def test_result_example_where_a_raises_condition_holds() -> None:
    result = run(
        """spec s version 1
function f(x: int) -> int
    raises ValueError R when x < 0
    example X: f(-1) == 0
"""
    )
    assert result.status == "infeasible_proven"
    assert ids(result) == {"X", "R"}


def test_raises_example_where_no_raises_condition_holds() -> None:
    result = run(
        """spec s version 1
function f(x: int) -> int
    raises ValueError R when x < 0
    example X: f(3) raises ValueError
"""
    )
    assert ids(result) == {"X"}
    assert "return normally" in result.cores[0].explanation


def test_raises_example_accepts_a_related_exception() -> None:
    result = run(
        """spec s version 1
exception TooSmall(ValueError)
function f(x: int) -> int
    raises TooSmall when x < 0
    ensures: result == x
    example X: f(-3) raises ValueError
"""
    )
    assert result.status == "feasible", result.reason


def test_example_outside_the_precondition() -> None:
    result = run(
        """spec s version 1
function f(x: int) -> int
    requires P: x <= 100
    ensures: result == x
    example X: f(200) == 200
"""
    )
    assert ids(result) == {"X", "P"}


# --------------------------------------------------------------------------- 4. realizability


def test_unrealizable_without_a_pin_gives_the_input_and_the_ensures() -> None:
    result = run(
        """spec s version 1
function h(x: int) -> int
    requires: x >= 0
    ensures H1: result > x
    ensures H2: result < x + 1
"""
    )
    core = result.cores[0]
    assert core.kind == "unrealizable"
    assert set(core.ids) == {"H1", "H2"}
    assert core.witness_input is not None and _int(core.witness_input["x"]) >= 0


def test_unrealizable_through_a_pinned_result_that_is_undefined() -> None:
    result = run(
        """spec s version 1
function k(s: str) -> int
    ensures K: result == int(s)
"""
    )
    core = result.cores[0]
    assert core.kind == "unrealizable"
    assert set(core.ids) == {"K"}
    assert "undefined" in core.explanation


def test_a_raises_clause_makes_the_pinned_function_realizable() -> None:
    result = run(
        """spec s version 1
function k(s: str) -> int
    requires: len(s) <= 4
    raises ValueError when not matches(s, "[0-9]+")
    ensures K: result == int(s)
"""
    )
    assert result.status == "feasible", result.reason


def test_result_range_takes_part_in_realizability() -> None:
    result = run(
        """spec s version 1
function r(x: int in 0..5) -> int in 0..9
    ensures E: result == x * 3
"""
    )
    core = result.cores[0]
    assert core.kind == "unrealizable"
    assert set(core.ids) == {"E", "r.result.range"}
    assert core.witness_input is not None and _int(core.witness_input["x"]) >= 4


def test_operation_returning_none_with_an_impossible_ensures() -> None:
    result = run(
        """spec s version 1
system S
    operation op(n: int) -> none
        ensures E: n > 0
"""
    )
    core = result.cores[0]
    assert core.kind == "unrealizable" and core.subject == "S.op"
    assert core.witness_input is not None and _int(core.witness_input["n"]) <= 0


def test_kinds_come_in_the_documented_order() -> None:
    result = run(
        """spec s version 1
param x: int
requirement A: x > 1
requirement B: x < 0
function f(y: int) -> int
    requires: y > 1
    requires: y < 0
"""
    )
    assert [c.kind for c in result.cores] == [
        "inconsistent_requirements",
        "unsatisfiable_precondition",
    ]
    assert "inconsistent requirements" in result.reason


# --------------------------------------------------------------------------- unknown


def test_resource_limit_gives_unknown_never_a_verdict() -> None:
    result = run(
        """spec s version 1
param x: int
param y: int
param z: int
requirement N: x * x * x + y * y * y + z * z * z == 42
requirement P: x > 1000
""",
        rlimit=2000,
    )
    assert result.status == "unknown"
    assert result.unknowns and "resource limit" in result.unknowns[0].reason
    assert result.witness is None and result.cores == ()


def test_an_unencodable_obligation_makes_a_consistent_set_unknown() -> None:
    result = run(
        """spec s version 1
param x: int
requirement L: [][0] == x
"""
    )
    # ``[][0]`` is always undefined but has no element type to encode it in: the
    # encoding refuses it, so the (truly inconsistent) set is honestly unknown.
    assert result.status == "unknown"
    assert result.unknowns[0].ids == ("L",)
    assert "empty list" in result.unknowns[0].reason


def test_an_unencodable_obligation_does_not_hide_a_proven_conflict() -> None:
    result = run(
        """spec s version 1
param x: int
param n: int
requirement L: [][0] == x
requirement A: n > 1
requirement B: n < 0
"""
    )
    assert result.status == "infeasible_proven"
    assert ids(result) == {"A", "B"}


# --------------------------------------------------------------------------- all cores


def test_all_cores_splits_components_and_lists_corrections() -> None:
    result = run(
        """spec s version 1
param x: int
param y: int
requirement A: x > 5
requirement B: x < 3
requirement C: x < 4
requirement D: y > 1
requirement E: y < 0
""",
        all_cores=True,
    )
    cores = {frozenset(c.ids) for c in result.cores}
    assert cores == {frozenset({"A", "B"}), frozenset({"A", "C"}), frozenset({"D", "E"})}
    # Both components must be fixed: one correction from each.
    corrections = {frozenset(c.ids) for c in result.corrections}
    assert corrections == {
        frozenset({"A", "D"}),
        frozenset({"A", "E"}),
        frozenset({"B", "C", "D"}),
        frozenset({"B", "C", "E"}),
    }


# --------------------------------------------------------------------------- warnings


def test_latent_conflict_names_both_requirements() -> None:
    result = run(
        """spec s version 1
param a: int
param b: int
requirement R3: when a == 3, b shall be 2
requirement R4: when a == 3, b shall be 3
"""
    )
    assert result.status == "feasible"
    assert warnings_of(result, "latent_conflict") == [{"R3", "R4"}]
    assert result.strict_findings


def test_vacuous_condition_explained_by_its_core() -> None:
    result = run(
        """spec s version 1
param x: int
requirement A: x >= 3
requirement W: when x < 2, x shall be 0
"""
    )
    assert warnings_of(result, "vacuous") == [{"W", "A"}]
    assert not warnings_of(result, "latent_conflict")


def test_vacuous_raises_condition() -> None:
    result = run(
        """spec s version 1
function f(x: int) -> int
    requires P: x < 20
    raises TypeError T when x > 30
    ensures: result == x
"""
    )
    assert warnings_of(result, "vacuous") == [{"T", "P"}]


def test_ambiguous_raises_gives_the_input() -> None:
    result = run(
        """spec s version 1
function f(x: int) -> int
    raises ValueError V when x == 15
    raises KeyError K when x >= 15
    ensures: result == x
"""
    )
    found = [w for w in result.warnings if w.kind == "ambiguous_raises"]
    assert [set(w.ids) for w in found] == [{"V", "K"}]
    assert dict(found[0].input or {}) == {"x": 15}


def test_redundant_only_when_asked() -> None:
    text = """spec s version 1
param x: int
requirement A: x >= 10
requirement B: x >= 5
"""
    assert not warnings_of(run(text), "redundant")
    found = warnings_of(run(text, redundancy=True), "redundant")
    assert {"B", "A"} in found
    assert all(sorted(w)[0] != "A" or "B" in w for w in found)


def test_unused_param() -> None:
    result = run(
        """spec s version 1
param x: int
param spare: int
requirement A: x >= 10
"""
    )
    assert [w.ids for w in result.warnings if w.kind == "unused_param"] == [("spare",)]


# --------------------------------------------------------------------------- renderers


INCONSISTENT = """spec s version 1
param x: int
requirement A [source: ux] "at least ten": x >= 10
requirement C: x <= 5
"""


def test_text_report_names_everything_and_says_why() -> None:
    text = render_text(run(INCONSISTENT))
    assert "status: infeasible_proven" in text
    assert 'A  spec.req:3  [source: ux]  "at least ten"' in text
    assert "x >= 10" in text and "C  spec.req:4" in text
    assert "cannot both hold" in text


def test_json_document_has_exactly_the_documented_fields() -> None:
    doc = render_json(run(INCONSISTENT))
    assert set(doc) == {
        "format", "status", "witness", "certificate", "cores", "corrections", "warnings",
        "unknowns", "reason",
    }  # fmt: skip
    assert doc["format"] == "derivative.check/v1"
    assert doc["status"] == "infeasible_proven"
    assert doc["cores"][0]["ids"] == ["A", "C"]
    assert doc["cores"][0]["explanation"]
    json.dumps(doc, allow_nan=False)


def test_json_witness_values_are_json_safe() -> None:
    doc = render_json(
        run(
            """spec s version 1
enum Color { red, green }
param d: date
param r: real
param c: Color
param xs: list[int]
requirement A: d == date("2026-03-01") and r == 0.25 and c == Color.green
requirement B: xs == [1, 2]
"""
        )
    )
    assert doc["status"] == "feasible"
    assert doc["witness"]["params"] == {"d": "2026-03-01", "r": "0.25", "c": "green", "xs": [1, 2]}


def test_value_json_writes_reals_exactly() -> None:
    assert value_json(Fraction(1, 3)) == "1/3"
    assert value_json(Fraction(-5, 4)) == "-1.25"
    assert value_json(Fraction(7)) == "7"


def test_sarif_gives_each_core_member_a_location() -> None:
    sarif = render_sarif(run(INCONSISTENT))
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert results[0]["ruleId"] == "inconsistent_requirements"
    lines = [loc["physicalLocation"]["region"]["startLine"] for loc in results[0]["locations"]]
    assert lines == [3, 4]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "spec.req"


@pytest.mark.parametrize("strict", [False, True])
def test_sarif_strict_raises_latent_conflicts_to_errors(strict: bool) -> None:
    result = run(
        """spec s version 1
param a: int
param b: int
requirement R3: when a == 3, b shall be 2
requirement R4: when a == 3, b shall be 3
"""
    )
    levels = {r["level"] for r in render_sarif(result, strict=strict)["runs"][0]["results"]}
    assert levels == ({"error"} if strict else {"warning"})


# --------------------------------------------------------------------------- operations


def test_a_parameter_from_an_operation_takes_what_that_operation_returns() -> None:
    result = run(
        """spec s version 1
system Store
    operation issue(user: str) -> str
        ensures: len(result) >= 1
    operation redeem(token: str from issue, n: int) -> int
        ensures R1: len(token) >= 1
        ensures R2: result == n
"""
    )
    assert result.status == "feasible", result.reason


def test_a_conflict_that_depends_on_a_from_parameter_stays_unknown() -> None:
    result = run(
        """spec s version 1
system Store
    operation issue(user: str) -> str
    operation redeem(token: str from issue) -> int
        ensures R1: len(token) >= 1
"""
    )
    assert result.status == "unknown"
    assert any("earlier operations" in u.reason for u in result.unknowns)


def test_an_example_is_not_blamed_for_clauses_that_conflict_without_it() -> None:
    result = run(
        """spec s version 1
function bump(n: int) -> int
    ensures B1: result > n
    ensures B2: result < n + 1
    example X: bump(3) == 4
"""
    )
    assert [c.kind for c in result.cores] == ["unrealizable"]
    assert ids(result) == {"B1", "B2"}


def test_a_condition_its_own_consequence_rules_out_is_vacuous() -> None:
    result = run(
        """spec s version 1
param a: int
requirement W: when a == 3, a shall be 4
"""
    )
    found = [w for w in result.warnings if w.kind == "vacuous"]
    assert [w.ids for w in found] == [("W",)]
    assert "rules it out itself" in found[0].message


def test_an_example_whose_expected_value_is_undefined() -> None:
    result = run(
        """spec s version 1
function f(x: int) -> int
    ensures: result == x
    example X: f(1) == 1 // 0
"""
    )
    assert ids(result) == {"X"}
    assert "undefined" in result.cores[0].explanation


# --------------------------------------------------------------------------- certificates


@pytest.mark.parametrize(
    ("clauses", "core"),
    [
        # the example's input violates a requires clause
        ("    requires P: x >= 0\n    ensures E: result >= 0\n    example X: f(-1) == 0\n",
         {"X", "P"}),
        # a result example whose input triggers a raises condition
        ("    raises ValueError R when x > 3\n    example X: f(5) == 1\n", {"X", "R"}),
        # a raises example whose input violates a requires clause
        ("    requires P: x <= 10\n    raises ValueError R when x > 5\n"
         "    example X: f(20) raises ValueError\n", {"X", "P"}),
    ],
)  # fmt: skip
def test_a_contradicting_example_core_is_certified_with_the_inputs_free(
    clauses: str, core: set[str]
) -> None:
    from derivative.certificates import verify
    from derivative.solver._certify import certify

    text = f"spec s version 1\nfunction f(x: int) -> int\n{clauses}"
    loaded = api.parse_text(text, "spec.req")
    result = check(loaded.contract, loaded.types, CheckOptions())
    found = result.cores[0]
    assert (found.kind, set(found.ids)) == ("contradicting_example", core)
    # the minimality models assign the input too: without the example it is free
    models = dict(found.minimality)
    others = core - {"X"}
    assert all("x" in models[i] for i in core)
    assert all(models[i]["x"] == found.witness_input["x"] for i in others)  # type: ignore[index]
    cert = certify(loaded.contract, loaded.types, found)
    assert cert.witness_input == dict(found.witness_input or {})
    assert "(declare-fun x () Int)" in cert.smtlib
    verdict = verify(cert.to_json())
    assert verdict.valid, verdict.reasons
    assert [c.result for c in verdict.checks] == ["unsat", "unsat"]


def test_corrections_cut_at_the_bound_are_reported_never_silently() -> None:
    # Three independent components of five pairwise-conflicting requirements: each has
    # five minimal corrections (drop all but one), so the whole set has 5**3 = 125.
    lines = ["spec s version 1"]
    for name in "abc":
        lines.append(f"param {name}: int")
        lines += [f"requirement {name.upper()}{k}: {name} == {k}" for k in range(1, 6)]
    text = "\n".join(lines) + "\n"
    result = run(text, all_cores=True)
    assert result.status == "infeasible_proven"
    assert len(result.corrections) == 64
    notes = [u for u in result.unknowns if u.question == "all corrections"]
    assert len(notes) == 1
    assert "enumeration bounded at 64; more exist" in notes[0].reason
    assert "125" in notes[0].reason
    # Within the bound, every correction is listed and there is no note.
    complete = run(text, all_cores=True, max_cores=125)
    assert len({frozenset(c.ids) for c in complete.corrections}) == 125
    assert not [u for u in complete.unknowns if u.question == "all corrections"]
