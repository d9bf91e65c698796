"""Certificates built from real cores, checked by the independent verifier, and tampered with.

The cores are written by hand (we know which obligations of these specs conflict),
so these tests do not depend on the solver package.  Every certificate is built
once per module (building runs z3 and cvc5 in fresh processes).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from derivative._ast import Contract, Obligation
from derivative._errors import OperationalTimeout
from derivative._typecheck import TypeInfo, check
from derivative._values import EnumValue
from derivative.certificates import (
    Certificate,
    CertificateDocument,
    CertificateError,
    build_certificate,
    range_obligation,
    verify,
)
from derivative.certificates import _verify as verify_module
from derivative.certificates._document import document_json, from_json, payload_sha256
from derivative.certificates._reading import read_core
from derivative.certificates._smtlib import encode_script
from derivative.certificates._solvers import SolverRun, run_solvers
from derivative.grammar import load

Certs = dict[str, CertificateDocument]

SPEC = """\
spec lockout version 2
"Lockout rules for the account service."

enum Mode { strict, lenient }

const MIN_TRIES: int = 3

param max_attempts: int
param lockout_minutes: int in 0..1440
param mode: Mode

requirement R1 [source: security] "at least three tries": max_attempts >= MIN_TRIES
requirement R2 [source: ux]: max_attempts shall be at most 2
requirement R3: lockout_minutes shall be at least 2000
requirement R4: when mode == Mode.strict, lockout_minutes >= 10

function clamp(x: int in 0..100, label: str) -> int in 0..10
    requires P1: x >= 0
    raises ValueError when len(label) == 0
    ensures S1 "doubles": result == 2 * x
    ensures S2: result <= 10
    example X2: clamp(4, "a") == 7
    example X4: clamp(5, "b") raises ValueError

function code(s: str) -> bool
    requires C0: len(s) <= 8
    requires C1: matches(s, "[a-z]+")
    requires C2: startswith(s, "9")

function pick(m: Mode) -> Mode
    ensures K1: result != m
    ensures K2: result == Mode.strict

param codes: list[int in 0..9]
requirement Q1: len(codes) >= 1 and codes[0] >= 10

function root(x: int) -> int
    requires Q0: x >= 0
    raises ValueError QV when x > 50
    ensures Q2: result >= 0
    example Y1: root(-1) == 0
    example Y2: root(60) == 1
    example Y3: root(-5) raises ValueError

function guard(n: int, tag: str) -> int
    requires G1: n <= 10
    raises ValueError GV when n > 5
    example Z1: guard(20, "t") raises ValueError
"""


@pytest.fixture(scope="module")
def spec_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("spec") / "lockout.req"
    path.write_text(SPEC, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def loaded(spec_file: Path) -> tuple[Contract, TypeInfo]:
    contract = load([str(spec_file)])
    return contract, check(contract)


def _ob(loaded: tuple[Contract, TypeInfo], ident: str) -> Obligation:
    return next(o for o in loaded[0].obligations if o.id == ident)


@pytest.fixture(scope="module")
def certs(loaded: tuple[Contract, TypeInfo]) -> Certs:
    contract, info = loaded
    ob = {o.id: o for o in contract.obligations}
    lockout_range = range_obligation(
        "lockout_minutes", info.param_types["lockout_minutes"], file="lockout.req", line=9
    )
    assert lockout_range is not None
    result_range = range_obligation("result", info.signatures["clamp"].returns, owner="clamp")
    assert result_range is not None and result_range.id == "clamp.result.range"
    codes_range = range_obligation("codes", info.param_types["codes"])
    assert codes_range is not None
    return {
        "list_range": build_certificate(
            contract, info, "inconsistent_requirements", [codes_range, ob["Q1"]], None,
            {codes_range.id: {"codes": (10,)}, "Q1": {"codes": ()}},
        ),
        "result_range": build_certificate(
            contract, info, "unrealizable", [ob["S1"], result_range], {"x": 6, "label": "a"},
            # models may name more than the core needs: the certificate keeps what it uses
            {"S1": {"result": 0, "x": 6}, result_range.id: {"result": 12, "label": "a"}},
        ),
        "requirements": build_certificate(
            contract, info, "inconsistent_requirements", [ob["R1"], ob["R2"]], None,
            {"R1": {"max_attempts": 0}, "R2": {"max_attempts": 3}},
        ),
        "range": build_certificate(
            contract, info, "inconsistent_requirements", [lockout_range, ob["R3"]], None,
            {lockout_range.id: {"lockout_minutes": 2000}, "R3": {"lockout_minutes": 0}},
        ),
        "precondition": build_certificate(
            contract, info, "unsatisfiable_precondition", [ob["C1"], ob["C2"]], None,
            {"C1": {"s": "9"}, "C2": {"s": "ab"}},
        ),
        "unrealizable": build_certificate(
            contract, info, "unrealizable", [ob["S1"], ob["S2"]], {"x": 6, "label": "a"},
            {"S1": {"result": 0}, "S2": {"result": 12}},
        ),
        # A contradicting example's inputs are free: its models assign them too.
        "example": build_certificate(
            contract, info, "contradicting_example", [ob["X2"], ob["S1"]],
            {"x": 4, "label": "a"},
            {"X2": {"x": 4, "label": "a", "result": 8},
             "S1": {"x": 4, "label": "a", "result": 7}},
        ),
        "raises_example": build_certificate(
            contract, info, "contradicting_example", [ob["X4"]], {"x": 5, "label": "b"},
            {"X4": {}},
        ),
        # the example's input violates a requires clause
        "invalid_input": build_certificate(
            contract, info, "contradicting_example", [ob["Y1"], ob["Q0"]], {"x": -1},
            {"Y1": {"x": 0, "result": 0}, "Q0": {"x": -1, "result": 0}},
        ),
        # a result example whose input triggers a raises condition
        "must_raise": build_certificate(
            contract, info, "contradicting_example", [ob["Y2"], ob["QV"]], {"x": 60},
            {"Y2": {"x": 0, "result": 0}, "QV": {"x": 60, "result": 1}},
        ),
        # a raises example whose related condition cannot hold at its input
        "raises_alone": build_certificate(
            contract, info, "contradicting_example", [ob["Y3"]], {"x": -5}, {"Y3": {}},
        ),
        # a raises example whose input violates a requires clause
        "raises_invalid": build_certificate(
            contract, info, "contradicting_example", [ob["Z1"], ob["G1"]],
            {"n": 20, "tag": "t"},
            {"Z1": {"n": 0}, "G1": {"n": 20, "tag": "t"}},
        ),
        "enum": build_certificate(
            contract, info, "unrealizable", [ob["K1"], ob["K2"]],
            {"m": EnumValue("Mode", "strict")},
            {"K1": {"result": EnumValue("Mode", "strict")},
             "K2": {"result": EnumValue("Mode", "lenient")}},
        ),
    }  # fmt: skip


def _doc(cert: CertificateDocument) -> dict[str, Any]:
    return copy.deepcopy(cert.to_json())


def _rehash(doc: dict[str, Any]) -> dict[str, Any]:
    doc["sha256"] = payload_sha256(doc)
    return doc


def _reencode(doc: dict[str, Any]) -> dict[str, Any]:
    """Make the script agree with (tampered) core expressions, as a careful forger would."""
    reading = read_core(
        doc["kind"],
        from_json(Certificate.model_validate({**doc, "sha256": "0" * 64}).model_dump(
            mode="json")).declarations,
        [(c["id"], c["expr"]) for c in doc["core"]],
        doc["witness_input"],
    )
    doc["smtlib"] = encode_script(
        list(zip(reading.ids, reading.exprs, strict=True)), reading.scope()
    )
    return doc


def _rejected(result: verify_module.VerifyResult, *fragments: str) -> None:
    assert not result.valid
    text = " | ".join(result.reasons)
    for fragment in fragments:
        assert fragment in text, text


# --------------------------------------------------------------------------- genuine ones


@pytest.mark.parametrize(
    "name",
    [
        "requirements",
        "range",
        "list_range",
        "result_range",
        "precondition",
        "unrealizable",
        "example",
        "raises_example",
        "invalid_input",
        "must_raise",
        "raises_alone",
        "raises_invalid",
        "enum",
    ],
)
def test_genuine_certificates_are_valid_with_and_without_the_spec(
    certs: Certs, spec_file: Path, name: str
) -> None:
    cert = certs[name]
    alone = verify(cert.to_json())
    assert alone.valid, alone.reasons
    assert [c.result for c in alone.checks] == ["unsat", "unsat"]
    with_spec = verify(cert.to_json(), [str(spec_file)], solvers=())
    if cert.farkas is None:
        # no solver and no Farkas rows: the only reason must be the missing confirmation
        assert with_spec.reasons == [
            "no solver confirmed that the script is unsatisfiable and there is no valid "
            "Farkas certificate"
        ]
    else:
        assert with_spec.valid, with_spec.reasons


def test_what_a_certificate_says(certs: Certs) -> None:
    cert = certs["requirements"]
    assert cert.format == "derivative.certificate/v1"
    assert cert.status == "infeasible_proven"
    assert [(c.id, c.expr, c.line) for c in cert.core] == [
        ("R1", "max_attempts >= MIN_TRIES", 12),
        ("R2", "max_attempts <= 2", 13),
    ]
    assert cert.core[0].text == "at least three tries"
    assert cert.core[0].tags == {"source": "security"}
    assert [document_json(d) for d in cert.declarations] == [
        {"kind": "const", "name": "MIN_TRIES", "type": "int", "value": 3},
        {"kind": "param", "name": "max_attempts", "type": "int"},
    ]
    assert cert.witness_input is None
    assert cert.explanation.startswith(
        'R1 "at least three tries" (max_attempts >= MIN_TRIES) and R2 (max_attempts <= 2) '
        "cannot both hold"
    )
    assert "(assert (! (>= max_attempts MIN_TRIES) :named |R1|))" in cert.smtlib
    assert cert.smtlib.endswith("(check-sat)\n")
    assert cert.farkas is not None
    assert [(f.id, f.row.coefficients, f.row.bound, f.multiplier) for f in cert.farkas] == [
        ("R1", {"max_attempts": "-1"}, "-3", "1"),
        ("R2", {"max_attempts": "1"}, "2", "1"),
    ]
    assert [c.solver for c in cert.checks] == ["z3", "cvc5"]
    assert cert.proof is not None and cert.proof.format == "alethe"
    assert cert.sha256 == payload_sha256(cert.to_json())


def test_function_certificates_declare_result_and_let_the_example_pin_the_input(
    certs: Certs,
) -> None:
    cert = certs["example"]
    assert cert.witness_input == {"x": 4, "label": "a"}
    # the witness is reported, not fixed: the example's call pins the inputs
    assert "(declare-fun label () String)" in cert.smtlib
    assert "(declare-fun x () Int)" in cert.smtlib
    assert "define-fun x" not in cert.smtlib
    assert "(declare-fun result () Int)" in cert.smtlib
    assert '(assert (! (and (and (= x 4) (= label "a")) (= result 7)) :named |X2|))' in cert.smtlib
    assert [m.model for m in cert.minimality] == [
        {"label": "a", "result": 8, "x": 4},
        {"label": "a", "result": 7, "x": 4},
    ]
    # an unrealizable certificate is about one input: that one is fixed
    assert "(define-fun x () Int 6)" in certs["unrealizable"].smtlib
    assert document_json(cert.declarations[-1]) == {
        "kind": "function",
        "name": "clamp",
        "params": [{"name": "x", "type": "int in 0..100"}, {"name": "label", "type": "str"}],
        "returns": "int in 0..10",
    }
    assert "the example X2" in cert.explanation
    raises = certs["raises_example"]
    # a raises example pins the parameters itself, then needs a related condition
    assert [c.expr for c in raises.core] == ['x == 5 and label == "b" and len(label) == 0']
    assert raises.farkas is None  # label == "b" is no linear row
    assert "raises ValueError, which needs len(label) == 0" in raises.explanation
    assert certs["range"].core[0].id == "lockout_minutes.range"
    assert certs["range"].core[0].expr == "0 <= lockout_minutes <= 1440"
    assert certs["precondition"].farkas is None
    assert certs["list_range"].core[0].expr == "all(0 <= item <= 9 for item in codes)"
    assert certs["list_range"].farkas is None
    assert document_json(certs["enum"].declarations[0]) == {
        "kind": "enum", "name": "Mode", "members": ["strict", "lenient"]
    }  # fmt: skip


def test_a_farkas_certificate_is_valid_without_any_solver(certs: Certs) -> None:
    result = verify(certs["unrealizable"].to_json(), solvers=())
    assert result.valid, result.reasons
    assert result.farkas_checked
    assert result.checks == []


def test_missing_solvers_are_reported_not_skipped(
    certs: Certs, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fake(script: str, solvers: object, **kw: object) -> list[SolverRun]:
        return [SolverRun("z3", "5.4.1", "unsat"), SolverRun("cvc5", None, "missing")]

    monkeypatch.setattr(verify_module, "run_solvers", fake)
    result = verify(certs["precondition"].to_json())
    assert result.valid
    assert any("cvc5 is not installed" in n for n in result.notes)

    def none(script: str, solvers: object, **kw: object) -> list[SolverRun]:
        return [SolverRun("z3", None, "missing"), SolverRun("cvc5", None, "missing")]

    monkeypatch.setattr(verify_module, "run_solvers", none)
    _rejected(verify(certs["precondition"].to_json()), "no solver confirmed")
    assert verify(certs["requirements"].to_json()).valid  # Farkas rows suffice


def test_a_solver_that_finds_a_model_rejects(
    certs: Certs, monkeypatch: pytest.MonkeyPatch
) -> None:
    def sat(script: str, solvers: object, **kw: object) -> list[SolverRun]:
        return [SolverRun("z3", "5.4.1", "unsat"), SolverRun("cvc5", "1.4.2", "sat")]

    monkeypatch.setattr(verify_module, "run_solvers", sat)
    _rejected(verify(certs["requirements"].to_json()), "cvc5 1.4.2 says sat")


# --------------------------------------------------------------------------- tampering


def test_edited_hash(certs: Certs) -> None:
    doc = _doc(certs["requirements"])
    doc["sha256"] = "0" * 64
    _rejected(verify(doc, solvers=()), "sha256 is not the hash")


def test_any_edit_without_rehashing_breaks_the_hash(certs: Certs) -> None:
    doc = _doc(certs["requirements"])
    doc["created_at"] = "2000-01-01T00:00:00Z"
    _rejected(verify(doc, solvers=()), "sha256 is not the hash")
    doc = _doc(certs["requirements"])
    doc["core"][0]["text"] = "at least two tries"
    _rejected(verify(doc, solvers=()), "sha256 is not the hash")


def test_dropped_core_member(certs: Certs) -> None:
    # A careful forger: drop R2 everywhere, re-encode, rehash.  The rest is satisfiable.
    doc = _doc(certs["requirements"])
    doc["core"] = doc["core"][:1]
    doc["minimality"] = doc["minimality"][:1]
    doc["farkas"] = [f for f in doc["farkas"] if f["id"] == "R1"]
    _rehash(_reencode(doc))
    result = verify(doc)
    _rejected(result, "says sat", "farkas:")
    assert [c.result for c in result.checks] == ["sat", "sat"]
    # Careless: only the core entry is gone.
    doc = _rehash(_doc(certs["requirements"]))
    doc["core"] = doc["core"][:1]
    _rejected(verify(_rehash(doc), solvers=()), "smtlib script is not the encoding", "minimality")


def test_extra_core_member(certs: Certs) -> None:
    doc = _doc(certs["requirements"])
    doc["core"].append({"id": "R9", "file": "x.req", "line": 1, "text": None, "tags": {},
                        "expr": "max_attempts >= 0"})  # fmt: skip
    _rejected(verify(_rehash(doc), solvers=()), "smtlib script is not the encoding")
    doc["minimality"].append({"without": "R9", "model": {"max_attempts": 0}})
    _rehash(_reencode(doc))
    # the new member is not needed: its "without" model cannot satisfy R1 and R2
    _rejected(verify(doc, solvers=()), "minimality without R9: R1 does not hold")


def test_edited_model(certs: Certs) -> None:
    doc = _doc(certs["requirements"])
    doc["minimality"][0]["model"]["max_attempts"] = 7  # R2 fails there
    _rejected(verify(_rehash(doc), solvers=()), "minimality without R1: R2 does not hold")
    doc = _doc(certs["unrealizable"])
    doc["minimality"][1]["model"] = {}
    _rejected(verify(_rehash(doc), solvers=()), "minimality without S2: no value for result")
    doc = _doc(certs["unrealizable"])
    doc["minimality"][1]["model"]["result"] = "12"
    _rejected(verify(_rehash(doc), solvers=()), "minimality without S2: result:")
    doc = _doc(certs["requirements"])
    doc["minimality"][1]["without"] = "R1"
    _rejected(verify(_rehash(doc), solvers=()), "member R1 has 2 models", "member R2 has 0")


def test_edited_row(certs: Certs) -> None:
    doc = _doc(certs["requirements"])
    doc["farkas"][1]["row"]["bound"] = "5/1"
    _rejected(verify(_rehash(doc), solvers=()), "farkas row 2 (R2) is not the row derived")
    doc = _doc(certs["requirements"])
    doc["farkas"][0]["row"]["coefficients"] = {"max_attempts": "-2/1"}
    _rejected(verify(_rehash(doc), solvers=()), "farkas row 1 (R1) is not the row derived")
    doc = _doc(certs["requirements"])
    doc["farkas"] = doc["farkas"][:1]
    _rejected(verify(_rehash(doc), solvers=()), "the core gives 2 rows")


def test_edited_multiplier(certs: Certs) -> None:
    doc = _doc(certs["requirements"])
    doc["farkas"][0]["multiplier"] = "2/1"
    _rejected(verify(_rehash(doc), solvers=()), "farkas: the weighted rows do not cancel")
    doc = _doc(certs["unrealizable"])
    for entry in doc["farkas"]:
        entry["multiplier"] = "0/1"
    _rejected(verify(_rehash(doc), solvers=()), "which is no contradiction")
    doc = _doc(certs["requirements"])
    doc["farkas"][0]["multiplier"] = "-1/1"
    _rejected(verify(_rehash(doc), solvers=()), "negative")
    doc = _doc(certs["requirements"])
    doc["farkas"][0]["multiplier"] = "5e-1"  # exact decimals and p/q only, no exponents
    _rejected(verify(_rehash(doc), solvers=()), "farkas.0.multiplier")


def test_edited_script(certs: Certs) -> None:
    doc = _doc(certs["requirements"])
    doc["smtlib"] = doc["smtlib"].replace("(<= max_attempts 2)", "(<= max_attempts 1)")
    _rejected(verify(_rehash(doc), solvers=()), "smtlib script is not the encoding", "line 5")
    doc = _doc(certs["precondition"])
    doc["smtlib"] = doc["smtlib"].replace("(check-sat)", "(assert false)\n(check-sat)")
    _rejected(verify(_rehash(doc), solvers=()), "smtlib script is not the encoding")


def test_edited_expr(certs: Certs, spec_file: Path) -> None:
    doc = _doc(certs["requirements"])
    doc["core"][1]["expr"] = "max_attempts <= 1"
    _rejected(verify(_rehash(doc), solvers=()), "smtlib script is not the encoding")
    # Made self-consistent, it proves its own (different) core, but not the spec's.
    doc["farkas"][1]["row"]["bound"] = "1/1"
    _rehash(_reencode(doc))
    _rejected(verify(doc, solvers=()), "the explanation does not say what the core says")
    doc["explanation"] = (
        doc["explanation"].replace("max_attempts <= 2", "max_attempts <= 1")
        .replace("gives 0 <= -1,", "gives 0 <= -2,")
    )
    _rehash(doc)
    assert verify(doc, solvers=()).valid
    _rejected(
        verify(doc, [str(spec_file)], solvers=()),
        "core member R2 asserts max_attempts <= 1, but the spec's R2 means max_attempts <= 2",
    )
    doc = _doc(certs["requirements"])
    doc["core"][1]["expr"] = "max_attempts <= "
    _rejected(verify(_rehash(doc), solvers=()), "core member R2:")
    doc["core"][1]["expr"] = "max_attempts <= 2\nrequirement Z: false"
    _rejected(verify(_rehash(doc), solvers=()), "spans several lines")
    doc["core"][1]["expr"] = 'max_attempts <= "two"'
    _rejected(verify(_rehash(doc), solvers=()), "core member R2:")


def test_edited_declaration(certs: Certs, spec_file: Path) -> None:
    doc = _doc(certs["requirements"])
    doc["declarations"][0]["value"] = 1  # MIN_TRIES = 1: R1, R2 are then consistent
    _rehash(_reencode(doc))
    doc["farkas"] = None
    _rehash(doc)
    _rejected(verify(doc), "says sat")
    _rejected(verify(doc, [str(spec_file)], solvers=()), "declaration of const MIN_TRIES")
    doc = _doc(certs["requirements"])
    doc["declarations"][1]["type"] = "bool"
    _rejected(verify(_rehash(doc), solvers=()), "core member R1:")


def test_edited_witness(certs: Certs, spec_file: Path) -> None:
    doc = _doc(certs["unrealizable"])
    doc["witness_input"]["x"] = 5  # 2 * 5 = 10 satisfies S2
    _rejected(verify(_rehash(doc), solvers=()), "smtlib script is not the encoding")
    _rehash(_reencode(doc))
    _rejected(verify(doc), "says sat")
    doc = _doc(certs["unrealizable"])
    doc["witness_input"]["label"] = ""  # an input where the call must raise
    _rehash(_reencode(doc))
    _rejected(
        verify(doc, [str(spec_file)], solvers=()),
        "the witness input satisfies the raises condition clamp.raises.ValueError",
    )
    doc = _doc(certs["unrealizable"])
    doc["witness_input"]["x"] = 600  # outside x: int in 0..100
    doc["farkas"] = None
    _rehash(_reencode(doc))
    _rejected(
        verify(doc, [str(spec_file)], solvers=()),
        "the witness input x is not a value of its type int in 0..100",
    )
    doc = _doc(certs["example"])
    doc["witness_input"]["x"] = 3
    _rehash(_reencode(doc))
    _rejected(verify(doc, solvers=()), "the example's argument x = 4 is not the witness input")
    # a raises example has no call: its pins must be the witness
    doc = _doc(certs["raises_invalid"])
    doc["witness_input"]["n"] = 21
    _rehash(_reencode(doc))
    _rejected(verify(doc, solvers=()), "no core member is the example at the witness input")
    _rejected(
        verify(doc, [str(spec_file)], solvers=()),
        "example Z1: the argument n is not the witness input",
    )
    doc = _doc(certs["unrealizable"])
    doc["witness_input"] = None
    _rejected(verify(_rehash(doc), solvers=()), "needs a witness input")


def test_wrong_spec(certs: Certs, tmp_path: Path) -> None:
    other = tmp_path / "other.req"
    other.write_text(SPEC.replace("shall be at most 2", "shall be at most 4"), encoding="utf-8")
    _rejected(
        verify(certs["requirements"].to_json(), [str(other)], solvers=()),
        "the spec's identity is",
        "but the spec's R2 means max_attempts <= 4",
    )
    renamed = tmp_path / "renamed.req"
    renamed.write_text(SPEC.replace("version 2", "version 3"), encoding="utf-8")
    _rejected(
        verify(certs["requirements"].to_json(), [str(renamed)], solvers=()),
        "the spec is lockout version 3, the certificate is about lockout version 2",
    )
    unrelated = tmp_path / "unrelated.req"
    unrelated.write_text("spec lockout version 2\nparam max_attempts: int\n", encoding="utf-8")
    _rejected(
        verify(certs["requirements"].to_json(), [str(unrelated)], solvers=()),
        "core member R1 is not an obligation of the spec",
    )


def test_a_range_must_be_the_declared_range(certs: Certs, spec_file: Path) -> None:
    doc = _doc(certs["range"])
    doc["core"][0]["expr"] = "0 <= lockout_minutes <= 3000"
    doc["farkas"] = None
    _rehash(_reencode(doc))
    _rejected(verify(doc), "says sat")
    _rejected(
        verify(doc, [str(spec_file)], solvers=()),
        "core member lockout_minutes.range asserts 0 <= lockout_minutes <= 3000",
    )


def test_not_a_certificate() -> None:
    _rejected(verify([1, 2], solvers=()), "a certificate is a JSON object")
    _rejected(
        verify({"format": "derivative.check/v1"}, solvers=()), "not a derivative.certificate/v1"
    )
    result = verify({"format": "derivative.certificate/v1"}, solvers=())
    _rejected(result, "kind: Field required")


def test_core_members_must_belong_to_the_kind(
    certs: Certs, spec_file: Path
) -> None:
    doc = _doc(certs["requirements"])
    doc["kind"] = "unsatisfiable_precondition"
    _rejected(verify(_rehash(doc), solvers=()), "needs the declaration of its function")


# --------------------------------------------------------------------------- the builder refuses


def test_builder_refuses_a_core_that_is_not_minimal(loaded: tuple[Contract, TypeInfo]) -> None:
    contract, info = loaded
    core = [_ob(loaded, "R1"), _ob(loaded, "R2"), _ob(loaded, "R4")]
    models = {"R1": {"max_attempts": 0}, "R2": {"max_attempts": 3}, "R4": {"max_attempts": 0}}
    with pytest.raises(CertificateError, match="fails its own checks"):
        build_certificate(contract, info, "inconsistent_requirements", core, None, models)


def test_builder_refuses_ranges_not_written_as_declared(
    loaded: tuple[Contract, TypeInfo],
) -> None:
    contract, info = loaded
    made_up = _ob(loaded, "R3").model_copy(update={"id": "lockout_minutes.range"})
    with pytest.raises(CertificateError, match="not a declared range"):
        build_certificate(
            contract, info, "inconsistent_requirements", [made_up, _ob(loaded, "R3")], None,
            {"lockout_minutes.range": {}, "R3": {}},
        )  # fmt: skip
    other = _ob(loaded, "R3").model_copy(update={"id": "R99"})
    with pytest.raises(CertificateError, match="no declared range"):
        build_certificate(contract, info, "inconsistent_requirements", [other], None, {"R99": {}})


def test_certificates_keep_only_the_names_their_core_uses(certs: Certs) -> None:
    cert = certs["result_range"]
    assert [m.model for m in cert.minimality] == [{"result": 0}, {"result": 12}]
    assert [c.id for c in cert.core] == ["S1", "clamp.result.range"]
    assert cert.core[1].expr == "0 <= result <= 10"


def test_builder_refuses_a_satisfiable_core(loaded: tuple[Contract, TypeInfo]) -> None:
    contract, info = loaded
    with pytest.raises(CertificateError, match=r"not confirmed unsatisfiable: z3 \S+ says sat"):
        build_certificate(
            contract, info, "inconsistent_requirements", [_ob(loaded, "R1")], None, {"R1": {}}
        )


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda a: a.update(kind="unrealizable"), "needs witness input"),
        (lambda a: a.update(minimality={"R1": {"max_attempts": 0}}), "no minimality model for R2"),
        (lambda a: a.update(minimality={"R1": {"max_attempts": "0"}, "R2": {"max_attempts": 3}}),
         "is not an int"),
        (lambda a: a.update(minimality={"R1": {"nope": 0}, "R2": {"max_attempts": 3}}),
         "names 'nope'"),
        (lambda a: a.update(core=[]), "an empty core"),
        (lambda a: a.update(kind="unsatisfiable_precondition"), "exactly one function"),
    ],
)  # fmt: skip
def test_builder_refuses_bad_requests(
    loaded: tuple[Contract, TypeInfo], mutate: Callable[[dict[str, Any]], None], message: str
) -> None:
    contract, info = loaded
    request: dict[str, Any] = {
        "kind": "inconsistent_requirements",
        "core": [_ob(loaded, "R1"), _ob(loaded, "R2")],
        "witness_input": None,
        "minimality": {"R1": {"max_attempts": 0}, "R2": {"max_attempts": 3}},
    }
    mutate(request)
    with pytest.raises(CertificateError, match=message):
        build_certificate(contract, info, **request, solvers=())


# --------------------------------------------------------------------------- contradicting examples


def test_an_example_at_an_invalid_or_raising_input_pins_the_free_inputs(
    certs: Certs,
) -> None:
    cert = certs["invalid_input"]
    assert cert.witness_input == {"x": -1}
    assert cert.smtlib.splitlines() == [
        "(set-logic ALL)",
        "(declare-fun x () Int)",
        "(declare-fun result () Int)",
        "(assert (! (and (= x (- 1)) (= result 0)) :named |Y1|))",
        "(assert (! (>= x 0) :named |Q0|))",
        "(check-sat)",
    ]
    # without the example the input is free, so the requires holds somewhere
    assert [(m.without, m.model) for m in cert.minimality] == [
        ("Y1", {"result": 0, "x": 0}),
        ("Q0", {"result": 0, "x": -1}),
    ]
    assert cert.farkas is not None  # x == -1 and x >= 0: solver-free
    assert "contradicts Q0 (x >= 0)" in cert.explanation
    raising = certs["must_raise"]
    assert "(assert (! (not (> x 50)) :named |QV|))" in raising.smtlib
    assert raising.farkas is not None
    assert [c.expr for c in certs["raises_alone"].core] == ["x == -5 and x > 50"]
    invalid = certs["raises_invalid"]
    assert [c.expr for c in invalid.core] == ['n == 20 and tag == "t" and n > 5', "n <= 10"]
    # the string equation gives no row; the others still add up
    assert invalid.farkas is not None
    assert "which needs n > 5" in invalid.explanation


def test_tampering_with_a_contradicting_example(
    certs: Certs, spec_file: Path
) -> None:
    # a careful forger drops the requires clause: the example alone is satisfiable
    doc = _doc(certs["invalid_input"])
    doc["core"] = doc["core"][:1]
    doc["minimality"] = doc["minimality"][:1]
    doc["farkas"] = [f for f in doc["farkas"] if f["id"] == "Y1"]
    _rehash(_reencode(doc))
    result = verify(doc)
    _rejected(result, "says sat", "farkas:")
    # ... or the example: then no member is at the witness input any more
    doc = _doc(certs["invalid_input"])
    doc["core"] = doc["core"][1:]
    doc["minimality"] = doc["minimality"][1:]
    doc["farkas"] = None
    _rehash(_reencode(doc))
    _rejected(verify(doc, solvers=()), "no core member is the example at the witness input")
    _rejected(verify(doc, [str(spec_file)], solvers=()), "has no example in it")
    # a model at the witness input does not satisfy the requires
    doc = _doc(certs["invalid_input"])
    doc["minimality"][0]["model"]["x"] = -1
    _rejected(verify(_rehash(doc), solvers=()), "minimality without Y1: Q0 does not hold")
    # the example's call has a value only at its own input
    doc = _doc(certs["invalid_input"])
    doc["minimality"][1]["model"]["x"] = 0
    _rejected(
        verify(_rehash(doc), solvers=()),
        "minimality without Q0: Y1 does not hold in the model (the call root() is not at "
        "the input of the model (x))",
    )
    doc = _doc(certs["invalid_input"])
    del doc["minimality"][1]["model"]["x"]
    _rejected(verify(_rehash(doc), solvers=()), "minimality without Q0: no value for x")
    # a raises example's equations are the example's arguments
    doc = _doc(certs["raises_invalid"])
    doc["core"][0]["expr"] = 'n == 3 and tag == "t" and n > 5'
    doc["farkas"] = None
    _rehash(_reencode(doc))
    _rejected(verify(doc, solvers=()), "no core member is the example at the witness input")
    _rejected(
        verify(doc, [str(spec_file)], solvers=()),
        'core member Z1 asserts n == 3 and tag == "t" and n > 5, but the spec\'s Z1 means '
        'n == 20 and tag == "t" and n > 5',
    )


# --------------------------------------------------------------------------- acceptance rule


def _fake_runs(*answers: tuple[str, str]) -> Callable[..., list[SolverRun]]:
    def fake(script: str, solvers: object, **kw: object) -> list[SolverRun]:
        return [SolverRun(solver, "9.9", result) for solver, result in answers]

    return fake


def test_the_builder_records_a_solver_that_gives_up_and_accepts_what_verify_accepts(
    loaded: tuple[Contract, TypeInfo], monkeypatch: pytest.MonkeyPatch
) -> None:
    from derivative.certificates import _build as build_module

    contract, info = loaded
    precondition = (
        contract, info, "unsatisfiable_precondition", [_ob(loaded, "C1"), _ob(loaded, "C2")],
        None, {"C1": {"s": "9"}, "C2": {"s": "ab"}},
    )  # fmt: skip
    requirements = (
        contract, info, "inconsistent_requirements", [_ob(loaded, "R1"), _ob(loaded, "R2")],
        None, {"R1": {"max_attempts": 0}, "R2": {"max_attempts": 3}},
    )  # fmt: skip
    # one unsat suffices; giving up (at the resource limit) is recorded as it happened
    monkeypatch.setattr(
        build_module, "run_solvers", _fake_runs(("z3", "unknown"), ("cvc5", "unsat"))
    )
    cert = build_certificate(*precondition)
    assert [(c.solver, c.result) for c in cert.checks] == [("z3", "unknown"), ("cvc5", "unsat")]
    result = verify(cert.to_json())  # the real solvers, in fresh processes
    assert result.valid, result.reasons
    # no solver decides it, but the Farkas rows do
    monkeypatch.setattr(
        build_module, "run_solvers", _fake_runs(("z3", "unknown"), ("cvc5", "missing"))
    )
    cert = build_certificate(*requirements)
    assert cert.farkas is not None
    assert [c.result for c in cert.checks] == ["unknown", "missing"]
    assert verify(cert.to_json(), solvers=()).valid
    # the wall-clock safety net is no answer: nothing is certified, even with an unsat
    # and Farkas rows (what the certificate held would depend on the machine's speed)
    monkeypatch.setattr(
        build_module, "run_solvers", _fake_runs(("z3", "unsat"), ("cvc5", "timeout"))
    )
    with pytest.raises(OperationalTimeout, match=r"cvc5 9\.9 says timeout"):
        build_certificate(*requirements)
    monkeypatch.setattr(
        build_module, "run_solvers", _fake_runs(("z3", "unknown"), ("cvc5", "unknown"))
    )
    # nothing establishes it: no certificate
    with pytest.raises(CertificateError, match="no solver said unsat and there is no Farkas"):
        build_certificate(*precondition)
    # a model refutes it, whatever the other solver says
    monkeypatch.setattr(build_module, "run_solvers", _fake_runs(("z3", "unsat"), ("cvc5", "sat")))
    with pytest.raises(CertificateError, match=r"cvc5 9\.9 says sat"):
        build_certificate(*requirements)


def test_recorded_checks_are_noted_when_they_cannot_be_re_derived(
    certs: Certs,
) -> None:
    """Without solvers here nothing re-derives a record: an answer a solver gives is noted,
    a model rejects, and a result the builder never records (a timeout stops it) rejects."""
    doc = _doc(certs["requirements"])
    doc["checks"][0]["result"] = "unknown"
    verdict = verify(_rehash(doc), solvers=())
    assert verdict.valid
    version = doc["checks"][0]["version"]
    assert f"recorded: z3 {version} answering unknown; not re-derived here" in verdict.notes
    doc["checks"][0]["result"] = "timeout"
    _rejected(verify(_rehash(doc), solvers=()), "records z3 answering 'timeout', which is not")
    doc["checks"][0]["result"] = "unsat"
    doc["checks"][1]["result"] = "sat"
    _rejected(verify(_rehash(doc), solvers=()), "the certificate records cvc5 answering sat")


def test_a_solver_that_hangs_is_killed_by_the_safety_net_and_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys
    import time

    from derivative.certificates import _solvers

    def hanging(solver: str, proof: bool) -> list[str]:
        return [sys.executable, "-c", "import time; time.sleep(60)"]

    # Both hang (a real solver next to them would have to answer within the short
    # deadline, which a loaded machine need not grant).
    monkeypatch.setattr(_solvers, "_command", hanging)
    start = time.monotonic()
    runs = run_solvers("(set-logic ALL)\n(assert false)\n(check-sat)\n", timeout=4.0)
    elapsed = time.monotonic() - start
    # one deadline for both (they run in parallel: one after the other would take 8 s),
    # and each is named as killed by the wall clock, not as out of resources
    assert [(r.solver, r.result) for r in runs] == [("z3", "timeout"), ("cvc5", "timeout")]
    assert all(r.detail.startswith("no answer within 4 s of wall-clock time") for r in runs)
    assert 4.0 <= elapsed < 8.0


def test_the_resource_limit_decides_and_is_not_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both solvers stop at their deterministic resource limit with ``unknown``, whatever
    the machine's speed, and say so; the safety net is far away."""
    from derivative.certificates import _solvers

    # the pigeonhole principle for 8 pigeons in 7 holes: unsat, but not in 100 units
    n = 8
    lines = ["(set-logic QF_UF)"]
    lines += [f"(declare-const p{i}_{j} Bool)" for i in range(n) for j in range(n - 1)]
    lines += ["(assert (or " + " ".join(f"p{i}_{j}" for j in range(n - 1)) + "))" for i in range(n)]
    lines += [
        f"(assert (or (not p{i}_{j}) (not p{k}_{j})))"
        for j in range(n - 1)
        for i in range(n)
        for k in range(i + 1, n)
    ]
    script = "\n".join([*lines, "(check-sat)", ""])
    monkeypatch.setattr(_solvers, "RLIMITS", {"z3": 100, "cvc5": 100})
    runs = run_solvers(script, proof_from="cvc5")
    assert [(r.solver, r.result) for r in runs] == [("z3", "unknown"), ("cvc5", "unknown")]
    assert [r.detail for r in runs] == ["resource limit reached (100 units)"] * 2
    assert runs[1].proof is None
    monkeypatch.undo()
    runs = run_solvers(script, proof_from="cvc5")  # the real limits are ample
    assert [(r.solver, r.result) for r in runs] == [("z3", "unsat"), ("cvc5", "unsat")]
    assert runs[1].proof is not None


def test_verify_gives_no_verdict_when_the_safety_net_fires(
    certs: Certs, monkeypatch: pytest.MonkeyPatch
) -> None:
    def hung(script: str, solvers: object, **kw: object) -> list[SolverRun]:
        return [SolverRun("z3", "5.4.1", "unsat"), SolverRun("cvc5", None, "timeout", "...")]

    monkeypatch.setattr(verify_module, "run_solvers", hung)
    with pytest.raises(OperationalTimeout, match="cvc5 says timeout"):
        verify(certs["requirements"].to_json())
