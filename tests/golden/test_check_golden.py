"""The ``derivative check`` golden catalogue: spec -> verdict, cores, warnings, reports.

Each folder under ``tests/golden/check/`` is one case: one or more ``.req`` files and a
``case.json`` that holds the expectation derived BY HAND from the language's meaning
(docs/language.md), written before the tool was run on the spec:

- ``specs``: the files named on the command line (the first one names the set);
- ``args``: extra flags (``--all-cores``, ``--strict``, ``--redundancy``, ``--rlimit N``);
- ``exit``, ``status``; for ``infeasible_proven`` the ``kind`` and exact ``core`` of the
  certified conflict and every core reported (``cores``; an ordered list, or any order
  with ``--all-cores``), optionally ``corrections``;
- ``warnings``: the exact multiset of ``(kind, ids)``;
- optionally ``farkas`` (whether a solver-free Farkas certificate must / must not exist),
  ``witness_params`` and ``witness_input`` (where the answer is unique);
- ``why``: one line of reasoning.

The hand-written expectations are what makes the catalogue able to fail: the
snapshots ``expected.txt`` / ``expected.json`` only pin the wording and layout of the
reports (so that an unintended change shows up in review) and are rewritten with
``DERIVATIVE_REGEN_GOLDEN=1`` (the ``golden`` fixture of ``tests/conftest.py``), never
by hand.  The expectations are never rewritten: a regenerating run still asserts them,
validates the report against its published model and verifies the certificate.

Every infeasible answer is also certified (``--certificate``) and the certificate is
handed to the independent checker (``derivative certificate verify --spec ...``), which
must accept it.  Feasible witnesses are re-evaluated here with the language's own
evaluator, independently of the solver.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from derivative import api, cli
from derivative._eval import Evaluator
from derivative._regex import fullmatch
from derivative._types import TDate, TDict, TEnum, TInt, TList, TOptional, TReal, TStr, TTuple, Ty
from derivative._values import EnumValue, Value
from derivative.certificates import Certificate
from derivative.certificates._jsonvalue import decode
from derivative.solver._document import CheckDocument

if TYPE_CHECKING:
    from conftest import Golden

CASES_DIR = Path(__file__).resolve().parent / "check"

KINDS = (
    "inconsistent_requirements",
    "unsatisfiable_precondition",
    "contradicting_example",
    "unrealizable",
)
WARNING_KINDS = ("vacuous", "latent_conflict", "ambiguous_raises", "redundant", "unused_param")
EXIT_FOR_STATUS = {"feasible": 0, "infeasible_proven": 3, "unknown": 6}

VOLATILE = "<volatile>"


def _case_names() -> list[str]:
    return sorted(p.parent.name for p in CASES_DIR.glob("*/case.json"))


def _expectation(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CASES_DIR / name / "case.json").read_text("utf-8"))
    return data


# --------------------------------------------------------------------------- running the CLI


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


def _cli(argv: Sequence[str]) -> Ran:
    """``derivative ARGV`` in this process (the same ``main`` as the console script)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return Ran(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """Run with ``folder`` as the working directory, so reports show short relative paths."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


# --------------------------------------------------------------------------- normalising


def _normalise_certificate(cert: dict[str, Any]) -> dict[str, Any]:
    """Blank the fields that differ between two runs (the time, the hash over it) or between
    two versions of the tool or of the solvers (version numbers, cvc5's proof text)."""
    out = dict(cert)
    for key in ("created_at", "sha256"):
        if key in out:
            out[key] = VOLATILE
    if isinstance(out.get("produced_by"), dict):
        out["produced_by"] = {**out["produced_by"], "version": VOLATILE}
    if isinstance(out.get("proof"), dict):
        # cvc5's proof text is its own (version-dependent) output, up to a megabyte:
        # the snapshot keeps its format, the verifier is what judges the certificate.
        out["proof"] = {**out["proof"], "text": VOLATILE}
    if isinstance(out.get("checks"), list):
        out["checks"] = [
            {**c, "version": VOLATILE} if isinstance(c, dict) else c for c in out["checks"]
        ]
    return out


def _normalise_report(report: dict[str, Any]) -> dict[str, Any]:
    out = dict(report)
    if isinstance(out.get("certificate"), dict):
        out["certificate"] = _normalise_certificate(out["certificate"])
    return out


# --------------------------------------------------------------------------- witnesses


def _value(v: Any, ty: Ty) -> Value:
    """A JSON value of the report back to a runtime value of type ``ty``."""
    if isinstance(ty, TDate):
        return dt.date.fromisoformat(v)
    if isinstance(ty, TReal):
        return Fraction(v)
    if isinstance(ty, TEnum):
        return EnumValue(ty.name, v)
    if isinstance(ty, TList):
        return tuple(_value(x, ty.elem) for x in v)
    if isinstance(ty, TTuple | TOptional | TDict):
        return decode(v, ty)  # tuples, none and dicts: the JSON forms of docs/language.md §6.7
    value: Value = v
    return value


def _in_type(v: Value, ty: Ty) -> bool:
    """Whether ``v`` satisfies the declared refinement of ``ty`` (range, pattern, members)."""
    if isinstance(ty, TInt):
        if not isinstance(v, int) or isinstance(v, bool):
            return False
        return (ty.lo is None or v >= ty.lo) and (ty.hi is None or v <= ty.hi)
    if isinstance(ty, TStr):
        return isinstance(v, str) and (ty.pattern is None or fullmatch(ty.pattern, v))
    if isinstance(ty, TEnum):
        return isinstance(v, EnumValue) and v.member in ty.members
    if isinstance(ty, TList):
        return isinstance(v, tuple) and all(_in_type(x, ty.elem) for x in v)
    return True


def _check_witness(specs: Sequence[str], witness: Mapping[str, Any]) -> None:
    """Re-evaluate the feasible witness with the evaluator: the solver is not trusted."""
    loaded = api.load(list(specs))
    contract, info = loaded.contract, loaded.types
    ev = Evaluator(info.const_values)
    params = {name: _value(witness["params"][name], ty) for name, ty in info.param_types.items()}
    for name, ty in info.param_types.items():
        assert _in_type(params[name], ty), f"witness {name} = {params[name]!r} is not a {ty}"
    for ob in contract.obligations:
        if ob.kind == "requirement":
            assert ev.holds(ob.expr, params) is True, f"the witness violates {ob.id}"
    calls: dict[str, Any] = dict(witness["functions"])
    for system, ops in witness["systems"].items():
        for op, call in ops.items():
            calls[f"{system}.{op}"] = call
    for owner, call in calls.items():
        sig = info.signatures[owner]
        env: dict[str, Value] = {n: _value(call["input"][n], ty) for n, ty, _ in sig.params}
        for n, ty, _ in sig.params:
            assert _in_type(env[n], ty), f"{owner}: witness input {n} is not a {ty}"
        obs = contract.obligations_of(owner)
        for ob in obs:
            if ob.kind == "requires":
                assert ev.holds(ob.expr, env) is True, f"witness input of {owner} violates {ob.id}"
        triggered = [ob for ob in obs if ob.kind == "raises" and ev.holds(ob.expr, env) is True]
        if call.get("raises") is not None:
            assert any(ob.exception == call["raises"] for ob in triggered), owner
            continue
        assert not triggered, f"witness input of {owner} triggers {triggered[0].id}"
        if call["result"] is not None or isinstance(sig.returns, TOptional):
            env["result"] = _value(call["result"], sig.returns)
            assert _in_type(env["result"], sig.returns), f"{owner}: result out of its type"
        for ob in obs:
            if ob.kind == "ensures":
                assert ev.holds(ob.expr, env) is True, f"witness of {owner} violates {ob.id}"


# --------------------------------------------------------------------------- the catalogue


def _warning_multiset(items: Sequence[Mapping[str, Any]]) -> Counter[tuple[str, frozenset[str]]]:
    return Counter((w["kind"], frozenset(w["ids"])) for w in items)


def _core_key(core: Mapping[str, Any]) -> tuple[str, frozenset[str]]:
    return (core["kind"], frozenset(core["ids"]))


@pytest.mark.parametrize("name", _case_names())
def test_check_case(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, golden: Golden
) -> None:
    # An internal error must not leave a crash report inside the catalogue folder.
    monkeypatch.setenv(cli.CRASH_DIR_ENV, str(tmp_path / "crashes"))
    exp = _expectation(name)
    folder = CASES_DIR / name
    specs: list[str] = exp["specs"]
    args: list[str] = exp["args"]
    status: str = exp["status"]
    certificate = tmp_path / "certificate.json"
    assert exp["exit"] == EXIT_FOR_STATUS[status] or "--strict" in args

    with _inside(folder):
        as_json = _cli(["check", *specs, *args, "--json", "--certificate", str(certificate)])
        as_text = _cli(["check", *specs, *args])
    assert as_json.code == exp["exit"], f"exit {as_json.code}: {as_json.err or as_json.out}"
    assert as_text.code == exp["exit"], f"exit {as_text.code}: {as_text.err}"
    report: dict[str, Any] = json.loads(as_json.out)

    # -- the hand-derived expectation ------------------------------------------------
    assert report["format"] == "derivative.check/v1"
    assert report["status"] == status, report["reason"]
    assert _warning_multiset(report["warnings"]) == _warning_multiset(exp["warnings"])
    if status == "infeasible_proven":
        cores = report["cores"]
        assert cores, "an infeasible answer must name a conflict"
        first = cores[0]
        assert first["kind"] == exp["kind"]
        if exp.get("core") is not None:
            assert set(first["ids"]) == set(exp["core"])
        assert all(c["minimal"] for c in cores)
        want = [_core_key(c) for c in exp["cores"]]
        got = [_core_key(c) for c in cores]
        if "--all-cores" in args:
            assert Counter(got) == Counter(want)
        else:
            assert got == want
        if "corrections" in exp:
            assert {frozenset(c["ids"]) for c in report["corrections"]} == {
                frozenset(c) for c in exp["corrections"]
            }
        if "witness_input" in exp:
            assert first["witness_input"] == exp["witness_input"]
        assert report["witness"] is None
        assert certificate.exists(), "--certificate wrote nothing for an infeasible set"
        cert = json.loads(certificate.read_text("utf-8"))
        assert report["certificate"] == cert
        assert cert["kind"] == first["kind"]
        assert [m["id"] for m in cert["core"]] == first["ids"]
        if "farkas" in exp:
            has_farkas = cert.get("farkas") is not None
            assert has_farkas == exp["farkas"], f"farkas present: {has_farkas}"
        with _inside(folder):
            verdict = _cli(["certificate", "verify", str(certificate), "--spec", *specs])
        assert verdict.code == 0, f"the certificate was rejected:\n{verdict.out}{verdict.err}"
    else:
        assert report["cores"] == []
        assert report["certificate"] is None
        assert not certificate.exists(), "a certificate was written for a non-infeasible set"
    if status == "feasible":
        assert report["unknowns"] == []
        assert report["witness"] is not None
        if "witness_params" in exp:
            assert report["witness"]["params"] == exp["witness_params"]
        with _inside(folder):
            _check_witness(specs, report["witness"])
    if status == "unknown":
        assert report["witness"] is None
        assert report["unknowns"], "unknown must give the undecided questions and reasons"
        assert all(u["reason"] for u in report["unknowns"])

    # -- in both modes: the published models, a stable normal form --------------------
    # the report is written as plain data: validating it changes nothing
    assert CheckDocument.model_validate(report).model_dump(mode="json") == report
    if report["certificate"] is not None:
        # written without pydantic (certificates/_document.py): the model reads it back
        # unchanged
        cert = report["certificate"]
        assert Certificate.model_validate(cert).model_dump(mode="json") == cert
    normalised_report = _normalise_report(report)
    assert _normalise_report(normalised_report) == normalised_report

    # -- the reports, byte for byte ----------------------------------------------------
    normalised = json.dumps(normalised_report, indent=2, ensure_ascii=False) + "\n"
    golden.check(folder / "expected.json", normalised)
    golden.check(folder / "expected.txt", as_text.out)


# --------------------------------------------------------------------------- the catalogue itself


def test_catalogue_covers_the_design() -> None:
    """Every infeasibility kind and every warning kind has a case, and there are enough cases."""
    names = _case_names()
    assert len(names) >= 45
    expectations = [_expectation(n) for n in names]
    kinds = {c["kind"] for e in expectations for c in e.get("cores", [])}
    assert kinds >= set(KINDS)
    warned = {w["kind"] for e in expectations for w in e["warnings"]}
    assert warned >= set(WARNING_KINDS)
    statuses = Counter(e["status"] for e in expectations)
    assert statuses["feasible"] and statuses["unknown"] and statuses["infeasible_proven"]
    assert any(len(e["specs"]) > 1 for e in expectations)
    for name, e in zip(names, expectations, strict=True):
        assert e["why"], name
        for spec in e["specs"]:
            assert (CASES_DIR / name / spec).is_file(), f"{name}: {spec} is missing"


def solver_free_share() -> tuple[int, int]:
    """(certificates with Farkas multipliers, certificates) over the committed snapshots."""
    with_farkas = total = 0
    for name in _case_names():
        snapshot = CASES_DIR / name / "expected.json"
        if not snapshot.exists():
            continue
        cert = json.loads(snapshot.read_text("utf-8")).get("certificate")
        if cert is None:
            continue
        total += 1
        with_farkas += cert.get("farkas") is not None
    return with_farkas, total


def test_solver_free_share() -> None:
    """Linear conflicts get Farkas certificates: at least every case that says one must exist."""
    with_farkas, total = solver_free_share()
    promised = sum(1 for n in _case_names() if _expectation(n).get("farkas") is True)
    print(f"solver-free certificates: {with_farkas}/{total}")
    assert total >= 30
    assert with_farkas >= promised
