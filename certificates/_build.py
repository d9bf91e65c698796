"""Building an infeasibility certificate from a core the solver found.

The solver finds a minimal core and, for each member, a model of the others; this
module turns that into a ``derivative.certificate/v1`` document and refuses to hand
it back unless it checks out:

1. each member's asserted expression (``_formula.core_formula``) is printed in the
   language's syntax, with the declarations of every name it uses;
2. the core is read back from that text exactly as the verifier will read it
   (parser and type checker), and must give back the very same expressions;
3. the SMT-LIB script, Farkas rows and multipliers are computed from what was read
   back, and the solver-free checks of the verifier (script, minimality models,
   Farkas combination) must all pass;
4. z3 and cvc5 re-check the script, each in a fresh process (cvc5 also gives its
   proof); they start as soon as the script exists and run while the rest of step 3
   is computed, and the certificate is sealed only with their answers.  The
   acceptance rule is the verifier's, so that the builder hands back exactly the
   certificates ``verify`` accepts: no solver may answer ``sat``, and
   unsatisfiability must be established by the Farkas check or by at least one
   solver's ``unsat``.  A solver that gives up (``unknown``, its deterministic
   resource limit included), is not installed or refuses the script is recorded in
   ``checks`` as it answered, never as ``unsat`` and never silently dropped.  A
   solver killed by the wall-clock safety net (``timeout``) gave no answer at all:
   what the certificate would hold then depends on the machine's speed, so nothing is
   certified and ``OperationalTimeout`` is raised instead.

Any failure in 2-4 is a bug (in the solver, the printer or here), reported as
``CertificateError`` (exit code 70), never as a certificate.  A core that uses a
construct with no faithful SMT-LIB encoding (``count``) raises ``EncodingError``.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Any

from derivative._ast import Contract, EnumMember, Expr, Obligation
from derivative._canon import contract_identity, expr_json
from derivative._errors import DerivativeError, ExitCode, OperationalTimeout
from derivative._numbers import real_text as fraction_text
from derivative._printer import to_source
from derivative._record import replace
from derivative._types import TEnum, TList, Ty
from derivative._values import Value
from derivative._walk import free_names, walk

from ._document import (
    KINDS,
    Certificate,
    ConstDeclaration,
    CoreEntry,
    Declaration,
    EnumDeclaration,
    FarkasEntry,
    FarkasRow,
    FunctionDeclaration,
    FunctionParam,
    MinimalityEntry,
    ParamDeclaration,
    ProducedBy,
    Proof,
    SolverCheck,
    SpecIdentity,
    payload_sha256,
)
from ._explain import explain_core, farkas_weights
from ._farkas import Row, combine, derive_rows, find_multipliers
from ._formula import core_formula
from ._jsonvalue import ValueError_, encode
from ._reading import ReadingError, read_core, type_text
from ._smtlib import encode_script
from ._solvers import DEFAULT_TIMEOUT, SOLVERS, run_solvers, timed_out
from ._verify import linear_context, static_checks

__all__ = ["CertificateError", "build_certificate"]


_RECHECKS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="certificate-recheck")
"""Runs ``run_solvers`` beside the rest of ``build_certificate``.  Its thread only waits
for the solver processes (which do the work, on other cores), so the Farkas rows,
the explanation and the spec's identity are computed meanwhile.  If building fails
before the answer is read, the processes still finish (or are killed at their
timeout) on their own."""


class CertificateError(DerivativeError):
    """A certificate failed its own checks before being returned: a bug, not bad input."""

    exit_code = ExitCode.INTERNAL


def _enums_of(ty: Ty, out: set[str]) -> None:
    if isinstance(ty, TEnum):
        out.add(ty.name)
    elif isinstance(ty, TList):
        _enums_of(ty.elem, out)


def _subject(kind: str, contract: Contract, core: Sequence[Obligation]) -> str | None:
    known = {o.id for o in contract.obligations}
    owners = {o.owner for o in core if o.id in known}
    synthetic_owners = {o.owner for o in core if o.id not in known} - {None}
    if kind == "inconsistent_requirements":
        if owners - {None} or synthetic_owners:
            raise CertificateError("an inconsistent_requirements core may hold only requirements")
        return None
    if len(owners) != 1 or None in owners:
        raise CertificateError(f"a {kind} core must belong to exactly one function")
    subject = next(iter(owners))
    assert subject is not None
    if synthetic_owners - {subject}:
        raise CertificateError("a range in the core belongs to another function")
    return subject


def _check_synthetic(
    contract: Contract, info: Any, subject: str | None, core: Sequence[Obligation]
) -> None:
    """Members that are not obligations of the contract must be its declared ranges,
    written exactly as ``range_obligation`` writes them (the verifier re-derives them)."""
    from ._verify import synthetic_obligation

    known = {o.id for o in contract.obligations}
    for o in core:
        if o.id in known:
            continue
        expected = synthetic_obligation(o.id, subject, info)
        if expected is None or expr_json(expected.expr) != expr_json(o.expr):
            shown = "no declared range" if expected is None else to_source(expected.expr)
            raise CertificateError(
                f"core member {o.id} ({to_source(o.expr)}) is not an obligation of the spec "
                f"and not a declared range ({shown}); make ranges with range_obligation()"
            )


def _declarations(info: Any, subject: str | None, formulas: Sequence[Expr]) -> list[Declaration]:
    names: set[str] = set()
    enums: set[str] = set()
    for f in formulas:
        names |= set(free_names(f))
        enums |= {n.enum for n in walk(f) if isinstance(n, EnumMember)}
    consts = sorted(n for n in names if n in info.const_types)
    if subject is None:
        params = sorted(n for n in names if n in info.param_types)
        for p in params:
            _enums_of(info.param_types[p], enums)
    for c in consts:
        _enums_of(info.const_types[c], enums)
    function: FunctionDeclaration | None = None
    if subject is not None:
        sig = info.signatures[subject]
        for _, ty, _ in sig.params:
            _enums_of(ty, enums)
        _enums_of(sig.returns, enums)
        function = FunctionDeclaration(
            name=subject,
            params=[FunctionParam(name=n, type=type_text(t)) for n, t, _ in sig.params],
            returns=type_text(sig.returns),
        )
    out: list[Declaration] = [
        EnumDeclaration(name=e, members=list(info.enums[e].members)) for e in sorted(enums)
    ]
    out.extend(
        ConstDeclaration(
            name=c,
            type=type_text(info.const_types[c]),
            value=encode(info.const_values[c], info.const_types[c]),
        )
        for c in consts
    )
    if subject is None:
        out.extend(ParamDeclaration(name=p, type=type_text(info.param_types[p])) for p in params)
    if function is not None:
        out.append(function)
    return out


def _model_json(
    ident: str, model: Mapping[str, Value | float], types: Mapping[str, Ty]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in sorted(model):
        ty = types.get(name)
        if ty is None:
            raise CertificateError(f"the model without {ident} names {name!r}, not a core variable")
        try:
            out[name] = encode(model[name], ty)
        except ValueError_ as err:
            raise CertificateError(f"the model without {ident}: {name}: {err}") from None
    return out


def _tool_version() -> str:
    """derivative's version, read from the already-loaded package (no import of the
    top layer from here: the layer rules forbid it)."""
    from derivative._version import __version__

    return __version__


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_certificate(
    contract: Contract,
    info: Any,
    kind: str,
    core: Sequence[Obligation],
    witness_input: Mapping[str, Value] | None,
    minimality: Mapping[str, Mapping[str, Value]],
    *,
    solvers: Sequence[str] = SOLVERS,
    timeout: float = DEFAULT_TIMEOUT,
    created_at: str | None = None,
) -> Certificate:
    """The checked certificate that ``core`` (a minimal unsatisfiable core) is contradictory.

    ``info`` is the contract's ``TypeInfo``; ``kind`` one of ``KINDS``; ``core`` the
    obligations in the order to report them (synthetic range obligations from
    ``range_obligation`` included); ``witness_input`` the input (parameter -> value)
    for ``unrealizable`` and ``contradicting_example``, else None; ``minimality``
    maps every member's id to values (params, or function parameters and
    ``"result"``) under which every other member holds.  An ``unrealizable``
    script fixes the witness input, so its models need not repeat it (values of
    fixed inputs are dropped); a ``contradicting_example`` script leaves the inputs
    free (the example pins them), so its models give the parameters too.  Raises
    ``CertificateError`` when a check fails (a bug) and ``EncodingError`` for a
    core with no SMT-LIB encoding, and ``OperationalTimeout`` when a re-check was
    killed by the wall-clock safety net (``timeout``).
    """
    _check_request(kind, core, witness_input)
    subject = _subject(kind, contract, core)
    _check_synthetic(contract, info, subject, core)
    formulas = [core_formula(o, contract, info.exceptions) for o in core]
    declarations = _declarations(info, subject, formulas)
    types = _variable_types(info, subject)
    witness_json = _witness_json(info, subject, witness_input, types)
    entries = [
        CoreEntry(id=o.id, file=o.file, line=o.line, text=o.text, tags=dict(o.tags),
                  expr=to_source(f))
        for o, f in zip(core, formulas, strict=True)
    ]
    ids = [o.id for o in core]
    reading = _read_back(kind, declarations, entries, witness_json, formulas)
    smtlib = encode_script(list(zip(ids, reading.exprs, strict=True)), reading.scope())
    # The independent re-checks need only the script: their solver processes run while
    # the rest of the certificate is computed, and are awaited before it is sealed.
    rechecks = _RECHECKS.submit(
        run_solvers,
        smtlib,
        solvers,
        proof_from="cvc5" if "cvc5" in solvers else None,
        timeout=timeout,
    )
    minimality_entries = _minimality(ids, minimality, reading, types)
    farkas, farkas_summary, farkas_bound = _farkas(ids, reading)
    explanation = explain_core(
        kind,
        reading,
        [o.text for o in core],
        raises={o.id: o.exception for o in core if o.kind == "example" and o.exception},
        examples=[o.id for o in core if o.kind == "example"],
        farkas=farkas_summary,
        farkas_bound=farkas_bound,
    )
    if explanation is None:
        raise CertificateError("a raises example of the core does not read back as one")
    fields: dict[str, Any] = {
        "kind": kind,
        "spec": SpecIdentity(
            name=contract.name, version=contract.version, sha256=contract_identity(contract)
        ),
        "declarations": declarations,
        "core": entries,
        "witness_input": witness_json,
        "explanation": explanation,
        "smtlib": smtlib,
        "minimality": minimality_entries,
        "farkas": farkas,
        "produced_by": ProducedBy(version=_tool_version()),
        "created_at": created_at or _now(),
    }
    draft = _seal(fields, checks=[], proof=None)
    static = static_checks(draft)
    if static.reasons:
        raise CertificateError("the certificate fails its own checks: " + "; ".join(static.reasons))
    checks, proof = _confirmed(rechecks.result(), farkas_checked=static.farkas_checked)
    return _seal(fields, checks=checks, proof=proof)


def _check_request(kind: str, core: Sequence[Obligation],
                   witness_input: Mapping[str, Value] | None) -> None:
    """What a request must be before anything is computed (a failure here is a bug)."""
    if kind not in KINDS:
        raise CertificateError(f"unknown certificate kind {kind!r}")
    if not core:
        raise CertificateError("an empty core proves nothing")
    ids = [o.id for o in core]
    if len(set(ids)) != len(ids):
        raise CertificateError("two core members have the same id")
    needs_witness = kind in ("unrealizable", "contradicting_example")
    if needs_witness != (witness_input is not None):
        raise CertificateError(
            f"a {kind} certificate {'needs' if needs_witness else 'has no'} witness input"
        )


def _variable_types(info: Any, subject: str | None) -> dict[str, Ty]:
    """The types of the variables the core talks about: params, or a function's
    parameters and ``result``."""
    types: dict[str, Ty] = {}
    if subject is None:
        types.update(info.param_types)
    else:
        sig = info.signatures[subject]
        types.update({n: t for n, t, _ in sig.params})
        types["result"] = sig.returns
    return types


def _witness_json(info: Any, subject: str | None, witness_input: Mapping[str, Value] | None,
                  types: Mapping[str, Ty]) -> dict[str, Any] | None:
    if witness_input is None:
        return None
    assert subject is not None
    witness_json: dict[str, Any] = {}
    for name, _, _ in info.signatures[subject].params:
        if name not in witness_input:
            raise CertificateError(f"the witness input has no value for {name}")
        try:
            witness_json[name] = encode(witness_input[name], types[name])
        except ValueError_ as err:
            raise CertificateError(f"witness input {name}: {err}") from None
    return witness_json


def _read_back(kind: str, declarations: Any, entries: Sequence[CoreEntry],
               witness_json: dict[str, Any] | None, formulas: Sequence[Expr]) -> Any:
    """The core read back with the language's own parser, checked to mean the same."""
    try:
        reading = read_core(kind, declarations, [(e.id, e.expr) for e in entries], witness_json)
    except ReadingError as err:
        raise CertificateError(f"the certificate's core does not read back: {err}") from None
    for entry, original, read in zip(entries, formulas, reading.exprs, strict=True):
        if expr_json(original) != expr_json(read):
            raise CertificateError(
                f"core member {entry.id} does not survive printing and parsing: "
                f"{to_source(original)!r} reads back as {to_source(read)!r}"
            )
    return reading


def _minimality(ids: Sequence[str], minimality: Mapping[str, Mapping[str, Value]],
                reading: Any, types: Mapping[str, Ty]) -> list[MinimalityEntry]:
    missing = [i for i in ids if i not in minimality]
    if missing:
        raise CertificateError(f"no minimality model for {', '.join(missing)}")
    # Models may name more than the core uses (every param, a fixed witness input
    # again); the certificate keeps what its core declares and does not fix.
    keep = set(reading.variables) - set(reading.fixed)
    if reading.result is not None:
        keep.add("result")
    entries = []
    for i in ids:
        model = dict(minimality[i])
        _model_json(i, model, dict(types))  # every value must be a value of its type
        kept = {k: v for k, v in model.items() if k in keep}
        entries.append(MinimalityEntry(without=i, model=_model_json(i, kept, dict(types))))
    return entries


def _farkas(ids: Sequence[str], reading: Any) -> tuple[
        list[FarkasEntry] | None, list[tuple[str, Fraction]] | None, Fraction | None]:
    """Farkas rows and multipliers where the core is linear and its relaxation infeasible:
    the entries, each member's total weight (for the explanation), and the bound."""
    derived = derive_rows(reading.exprs, linear_context(reading))
    if derived is None:
        return None, None, None
    flat: list[tuple[str, Row]] = [
        (i, row) for i, rows in zip(ids, derived, strict=True) for row in rows
    ]
    multipliers = find_multipliers([row for _, row in flat])
    if multipliers is None:
        return None, None, None
    farkas = [
        FarkasEntry(
            id=i,
            row=FarkasRow(
                coefficients={k: fraction_text(v) for k, v in row.coefficients},
                bound=fraction_text(row.bound),
            ),
            multiplier=fraction_text(y),
        )
        for (i, row), y in zip(flat, multipliers, strict=True)
    ]
    summary = farkas_weights([i for i, _ in flat], multipliers, ids)
    return farkas, summary, combine([r for _, r in flat], multipliers).bound


def _confirmed(runs: Sequence[Any], *, farkas_checked: bool) -> tuple[list[SolverCheck],
                                                                      Proof | None]:
    """The re-checks' verdict: the checks to record and cvc5's proof, or why not."""
    hung = timed_out(runs)
    if hung:
        raise OperationalTimeout(
            "the certificate's independent re-check did not finish: "
            + "; ".join(r.describe() for r in hung)
            + "; nothing was certified (run it again, on a less loaded machine)"
        )
    refuted = [r for r in runs if r.result == "sat"]
    if refuted:
        raise CertificateError(
            "the core was not confirmed unsatisfiable: " + "; ".join(r.describe() for r in refuted)
        )
    if not (farkas_checked or any(r.result == "unsat" for r in runs)):
        raise CertificateError(
            "the core was not confirmed unsatisfiable (no solver said unsat and there is no "
            "Farkas certificate): " + ("; ".join(r.describe() for r in runs) or "no solver ran")
        )
    proof: Proof | None = None
    for run in runs:
        if run.proof is not None and run.proof.get("format") in ("alethe", "cpc"):
            proof = Proof(format=run.proof["format"], text=str(run.proof.get("text", "")))
    checks = [SolverCheck(solver=r.solver, version=r.version, result=r.result) for r in runs]
    return checks, proof


def _seal(
    fields: Mapping[str, Any], *, checks: list[SolverCheck], proof: Proof | None
) -> Certificate:
    """The certificate with these fields and its ``sha256`` computed over all of them."""
    unsealed = Certificate(**fields, checks=checks, proof=proof, sha256="0" * 64)
    return replace(unsealed, sha256=payload_sha256(unsealed.to_json()))
