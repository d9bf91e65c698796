"""The independent certificate checker (``derivative certificate verify``).

It trusts nothing in the certificate and imports nothing from the solver package
(docs/architecture.md): everything is re-derived from the certificate's own text with
the language's parser, type checker and evaluator, this package's SMT-LIB printer,
exact fractions, and z3 and cvc5 in fresh processes.  A spec given with it is loaded
first, so a spec that cannot be read is bad input whatever the certificate is.  In order:

0. the JSON is one a strict reader accepts (``derivative._strictjson``: the file's text
   is read with it; a parsed document is held to the same nesting and number limits),
   and it validates against the model in strict mode (``"version": "2"`` is a string,
   not the integer 2);
1. the document is a ``derivative.certificate/v1`` and its ``sha256`` is the hash of
   every other field (any edit anywhere shows here, but anyone can recompute it, so
   nothing below takes a field on trust because the hash matches);
2. its declarations and core expressions parse and type-check (``_reading``); every
   call of the function in an example is at the witness input, and a
   ``contradicting_example`` core has a member that pins the witness (its example:
   the script leaves the inputs free and the example fixes them);
3. re-encoding the core gives exactly the ``smtlib`` script (an ``unrealizable``
   witness fixed in it, a ``contradicting_example`` one not);
4. every ``minimality`` model makes every other core member defined and true (plain
   evaluation, no solver; an example's call has a value only at its own input), one
   model per member;
5. the ``farkas`` rows are the rows of the core expressions and the multipliers add
   them up to ``0 <= c < 0`` (exact fractions); the ``explanation`` is the one the core
   gives (``_explain.explain_core``: every member with its text and expression, the
   witness, the combination of the rows); only a raises example's exception name is not
   in the certificate, so without the spec any name stands there, and with it the spec's;
6. z3 and cvc5, each in a fresh process under its deterministic resource limit, say
   ``unsat`` for the script; ``sat`` from either rejects (so does a recorded ``sat``
   in ``checks``); a solver that is not installed, refuses the script or gives up
   (its resource limit included) is reported in ``notes``, never skipped in silence.
   A solver killed by the wall-clock safety net gave no answer: the verdict would
   depend on the machine's speed, so ``OperationalTimeout`` is raised instead of one.
   The solvers run exactly as the builder ran them, so the recorded ``checks`` and the
   ``proof`` are re-derived, never trusted (``_records``);
7. with ``spec_paths``: the spec's identity, name and version are the certificate's,
   every core member is an obligation of the spec asserting the same expression (a
   ``X.range`` member: the declared range of ``X``), the declarations agree with
   the spec, and an ``unrealizable`` witness is a valid input of the function (of its
   declared types, satisfying every ``requires`` and no ``raises`` condition).

A certificate is valid when nothing above gives a reason to reject it and its
unsatisfiability is established: by a passing Farkas check (no solver needed) or by
at least one solver's ``unsat`` here, with no solver finding it satisfiable.  What the
certificate records (``checks``, ``proof``) never counts.
"""

from __future__ import annotations

import difflib
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from derivative._ast import BoolOp, Call, Compare, Contract, Expr, Obligation
from derivative._canon import contract_identity, expr_json
from derivative._errors import DerivativeError, OperationalTimeout
from derivative._eval import EvaluationError, Evaluator
from derivative._printer import to_source
from derivative._record import record
from derivative._strictjson import problems as json_problems
from derivative._types import Ty
from derivative._values import UNDEFINED, Value
from derivative._walk import free_names, walk

from ._document import (
    CERTIFICATE_FORMAT,
    Certificate,
    ConstDeclaration,
    EnumDeclaration,
    FunctionDeclaration,
    ParamDeclaration,
    from_json,
    payload_sha256,
)
from ._explain import explain_core, farkas_weights, raises_example_parts
from ._farkas import LinearContext, Row, check_combination, combine, derive_rows
from ._formula import RANGE_SUFFIX, core_formula, example_pins, range_obligation
from ._jsonvalue import ValueError_, decode, parse_fraction
from ._reading import Reading, ReadingError, read_core, type_text
from ._records import check_records
from ._smtlib import EncodingError, encode_script
from ._solvers import (
    DEFAULT_TIMEOUT,
    SOLVERS,
    SolverRun,
    run_solvers,
    timed_out,
)

__all__ = ["StaticCheck", "VerifyResult", "static_checks", "synthetic_obligation", "verify"]


@record
class VerifyResult:
    """The verdict: ``valid``, every reason to reject, the solver runs, and notes."""

    valid: bool
    reasons: list[str]
    checks: list[SolverRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    farkas_checked: bool = False
    proof: str = "absent"
    """The certificate's proof: ``absent``, ``unchecked``, or ``reproduced`` (cvc5 of the
    recorded version gives the very same proof here).  No proof checker reads it, so it
    never counts toward validity (``_records``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "reasons": list(self.reasons),
            "checks": [
                {"solver": c.solver, "version": c.version, "result": c.result, "detail": c.detail}
                for c in self.checks
            ],
            "farkas_checked": self.farkas_checked,
            "proof": self.proof,
            "notes": list(self.notes),
        }


@dataclass
class StaticCheck:
    """What the solver-free checks found (shared by the builder's self-check)."""

    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reading: Reading | None = None
    farkas_checked: bool = False
    farkas_summary: list[tuple[str, Fraction]] | None = None
    """Each member's total multiplier, once the Farkas check passed (for the explanation)."""
    farkas_bound: Fraction | None = None


# --------------------------------------------------------------------------- helpers


def _first_difference(expected: str, actual: str) -> str:
    exp_lines = expected.splitlines()
    act_lines = actual.splitlines()
    for i, (a, b) in enumerate(zip(exp_lines, act_lines, strict=False), start=1):
        if a != b:
            return f"line {i}: expected {a!r}, found {b!r}"
    if len(exp_lines) != len(act_lines):
        diff = list(difflib.unified_diff(exp_lines, act_lines, lineterm="", n=0))
        return f"{len(act_lines)} lines instead of {len(exp_lines)} ({' '.join(diff[2:4])})"
    return "the texts differ in white space or line endings"


def linear_context(reading: Reading) -> LinearContext:
    """Variables and constants as the Farkas rows see them (a fixed witness is constant)."""
    fixed = reading.fixed
    variables: dict[str, Ty] = {n: t for n, t in reading.variables.items() if n not in fixed}
    if reading.result is not None:
        variables["result"] = reading.result
    constants: dict[str, Value] = dict(reading.const_values)
    constants.update(fixed)
    return LinearContext(
        variables=variables,
        constants=constants,
        call_name=reading.call_name,
        call_params=tuple(reading.variables) if reading.subject is not None else (),
    )


def _example_calls(expr: Expr, call_name: str | None) -> list[Call]:
    if call_name is None:
        return []
    return [n for n in walk(expr) if isinstance(n, Call) and n.func == call_name]


def member_holds(reading: Reading, expr: Expr, env: Mapping[str, Value]) -> tuple[bool, str]:
    """Whether ``expr`` is defined and true in ``env`` (with the fixed input and
    constants).  The example's call answers ``env["result"]`` where the inputs in
    ``env`` are its arguments, and is undefined elsewhere (as in the script)."""
    call_name = reading.call_name
    params = list(reading.variables)

    def call_hook(node: Call, args: tuple[Any, ...]) -> Any:
        if node.func != call_name or "result" not in env:
            raise EvaluationError(f"no value for the call {node.func}()")
        if len(args) != len(params):
            raise EvaluationError(f"{node.func}() has {len(params)} parameters")
        for name, arg in zip(params, args, strict=True):
            if name not in env or not _same(env[name], arg):
                raise EvaluationError(
                    f"the call {node.func}() is not at the input of the model ({name})"
                )
        return env["result"]

    evaluator = Evaluator(reading.const_values, call_hook=call_hook)
    try:
        value = evaluator.holds(expr, env)
    except EvaluationError as err:
        return False, str(err)
    if value is UNDEFINED:
        return False, "it is undefined there"
    if value is not True:
        return False, "it is false there"
    return True, ""


def _same(a: object, b: object) -> bool:
    """Equal as values of the language (``1 == 1.0`` for reals; ``True != 1``)."""
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b)


# --------------------------------------------------------------------------- static checks


def static_checks(cert: Certificate) -> StaticCheck:
    """Every check that needs no solver and no spec (steps 2-5 of the module docstring)."""
    out = StaticCheck()
    members = [(c.id, c.expr) for c in cert.core]
    try:
        reading = read_core(cert.kind, cert.declarations, members, cert.witness_input)
    except ReadingError as err:
        out.reasons.extend(err.reasons)
        return out
    out.reading = reading
    _check_examples(cert, reading, out)
    _check_script(cert, reading, out)
    _check_minimality(cert, reading, out)
    _check_farkas(cert, reading, out)
    _check_explanation(cert, reading, out)
    return out


_PLACEHOLDER: Final = "\x00"
"""Stands for a raises example's exception name, which only the spec knows."""

MAX_RAISES_CANDIDATES: Final = 10
"""How many members may be read either way (raises example or not) without ``--spec``."""


def _explanation(cert: Certificate, reading: Reading, out: StaticCheck,
                 raises: Mapping[str, str], examples: Sequence[str]) -> str | None:
    return explain_core(
        cert.kind, reading, [c.text for c in cert.core], raises=raises, examples=examples,
        farkas=out.farkas_summary, farkas_bound=out.farkas_bound,
    )


def _says(expected: str, explanation: str) -> bool:
    """Whether ``explanation`` is ``expected``, a name standing for each placeholder."""
    pattern = r"[A-Za-z_][A-Za-z0-9_]*".join(re.escape(p) for p in expected.split(_PLACEHOLDER))
    return re.fullmatch(pattern, explanation) is not None


def _check_explanation(cert: Certificate, reading: Reading, out: StaticCheck) -> None:
    """The explanation must be the one the core gives (``_explain.explain_core``).

    Without the spec, which members are raises examples and of which exception is not
    in the certificate: a member whose expression has a raises example's shape
    (``p1 == a1 and ... and C``) may be one, with any exception name.  So every such
    reading is tried; with ``--spec`` the spec decides (``_spec_checks``).
    """
    if cert.farkas is not None and not out.farkas_checked:
        return  # the rows are a reason already, and the explanation's sum depends on them
    call_name = reading.call_name
    params = list(reading.variables)
    calls = [i for i, e in zip(reading.ids, reading.exprs, strict=True)
             if _example_calls(e, call_name)]
    candidates: list[str] = []
    if cert.kind == "contradicting_example" and call_name is not None:
        candidates = [i for i, e in zip(reading.ids, reading.exprs, strict=True)
                      if i not in calls and raises_example_parts(e, params, call_name)]
    if len(candidates) > MAX_RAISES_CANDIDATES:
        out.reasons.append(
            f"the explanation cannot be checked without the spec: {len(candidates)} members "
            "may be raises examples (give --spec)"
        )
        return
    first: str | None = None
    for size in range(len(candidates) + 1):
        for chosen in itertools.combinations(candidates, size):
            expected = _explanation(cert, reading, out, dict.fromkeys(chosen, _PLACEHOLDER),
                                    [*calls, *chosen])
            if expected is None:
                continue
            if _says(expected, cert.explanation):
                return
            first = first or expected
    out.reasons.append(
        "the explanation does not say what the core says: expected "
        f"{(first or '').replace(_PLACEHOLDER, 'E')!r}"
    )


def _args_are_witness(reading: Reading, args: Sequence[Expr]) -> list[tuple[str, Expr]]:
    """The (parameter, argument) pairs whose argument is not the witness input's value."""
    evaluator = Evaluator(reading.const_values)
    wrong: list[tuple[str, Expr]] = []
    for name, arg in zip(reading.variables, args, strict=True):
        try:
            value = evaluator.eval(arg, {})
        except EvaluationError:
            value = UNDEFINED
        witness = (reading.witness or {}).get(name, UNDEFINED)
        if value is UNDEFINED or witness is UNDEFINED or not _same(value, witness):
            wrong.append((name, arg))
    return wrong


def _check_examples(cert: Certificate, reading: Reading, out: StaticCheck) -> None:
    """Example calls are at the witness input; a ``contradicting_example`` pins it.

    Its inputs are free in the script, so the witness is what the example member
    pins them to: a result example's call arguments, or the leading ``p == a``
    equations of a raises example (``_formula.core_formula``).  Every call must be
    at the witness, and some member must pin the witness.
    """
    call_name = reading.call_name
    params = list(reading.variables)
    pinned = False
    for ident, expr in zip(reading.ids, reading.exprs, strict=True):
        for call in _example_calls(expr, call_name):
            if len(call.args) != len(params):
                out.reasons.append(
                    f"core member {ident}: the call has the wrong number of arguments"
                )
                continue
            wrong = _args_are_witness(reading, call.args)
            for name, arg in wrong:
                out.reasons.append(
                    f"core member {ident}: the example's argument {name} = {to_source(arg)} "
                    f"is not the witness input"
                )
            pinned = pinned or not wrong
        if cert.kind == "contradicting_example" and not pinned:
            args = example_pins(expr, params)
            pinned = args is not None and not _args_are_witness(reading, args)
    if cert.kind == "contradicting_example" and reading.witness is not None and not pinned:
        out.reasons.append(
            "no core member is the example at the witness input: no call of "
            f"{reading.subject} and no raises example pins the parameters to it"
        )


def _check_script(cert: Certificate, reading: Reading, out: StaticCheck) -> None:
    try:
        expected = encode_script(
            list(zip(reading.ids, reading.exprs, strict=True)), reading.scope()
        )
    except (EncodingError, ValueError_) as err:
        out.reasons.append(f"the core cannot be encoded in SMT-LIB: {err}")
        return
    if expected != cert.smtlib:
        out.reasons.append(
            "the smtlib script is not the encoding of the core: "
            + _first_difference(expected, cert.smtlib)
        )


def _needed_names(reading: Reading, exprs: Sequence[Expr]) -> set[str]:
    names: set[str] = set()
    for e in exprs:
        names |= {n for n in free_names(e) if n in reading.variables}
        if any(n.kind == "result" for n in walk(e)):
            names.add("result")
        if _example_calls(e, reading.call_name):
            # the call pins every parameter and answers result
            names |= {"result", *reading.variables}
    return names - set(reading.fixed)


def _check_minimality(cert: Certificate, reading: Reading, out: StaticCheck) -> None:
    ids = reading.ids
    given = [m.without for m in cert.minimality]
    for ident in ids:
        if given.count(ident) != 1:
            out.reasons.append(
                f"minimality: member {ident} has {given.count(ident)} models instead of one"
            )
    for ident in given:
        if ident not in ids:
            out.reasons.append(f"minimality: {ident} is not a core member")
    for entry in cert.minimality:
        if entry.without not in ids:
            continue
        others = [(i, e) for i, e in zip(ids, reading.exprs, strict=True) if i != entry.without]
        env: dict[str, Value] = dict(reading.fixed)
        bad = False
        for name, data in entry.model.items():
            ty = reading.var_type(name)
            if ty is None or name in reading.fixed:
                out.reasons.append(
                    f"minimality without {entry.without}: {name!r} is not a variable of the core"
                )
                bad = True
                continue
            try:
                env[name] = decode(data, ty)
            except ValueError_ as err:
                out.reasons.append(f"minimality without {entry.without}: {name}: {err}")
                bad = True
        missing = _needed_names(reading, [e for _, e in others]) - set(entry.model)
        for name in sorted(missing):
            out.reasons.append(f"minimality without {entry.without}: no value for {name}")
            bad = True
        if bad:
            continue
        for ident, expr in others:
            ok, why = member_holds(reading, expr, env)
            if not ok:
                out.reasons.append(
                    f"minimality without {entry.without}: {ident} does not hold "
                    f"in the model ({why})"
                )


def _row_json(row: Row) -> tuple[dict[str, Fraction], Fraction]:
    return row.as_dict(), row.bound


def _check_farkas(cert: Certificate, reading: Reading, out: StaticCheck) -> None:
    if cert.farkas is None:
        return
    derived = derive_rows(reading.exprs, linear_context(reading))
    if derived is None:
        out.reasons.append("farkas: the core is not linear arithmetic, so it has no rows")
        return
    expected = [
        (ident, row) for ident, rows in zip(reading.ids, derived, strict=True) for row in rows
    ]
    if len(expected) != len(cert.farkas):
        out.reasons.append(
            f"farkas: the core gives {len(expected)} rows, the certificate lists {len(cert.farkas)}"
        )
        return
    rows: list[Row] = []
    multipliers: list[Fraction] = []
    for n, ((ident, row), entry) in enumerate(zip(expected, cert.farkas, strict=True), start=1):
        try:
            given = (
                {k: parse_fraction(v) for k, v in entry.row.coefficients.items()},
                parse_fraction(entry.row.bound),
            )
            y = parse_fraction(entry.multiplier)
        except ValueError_ as err:
            out.reasons.append(f"farkas row {n}: {err}")
            return
        if entry.id != ident or given != _row_json(row):
            out.reasons.append(
                f"farkas row {n} ({entry.id}) is not the row derived from {ident}: "
                f"expected {row.show()}"
            )
            return
        rows.append(row)
        multipliers.append(y)
    problem = check_combination(rows, multipliers)
    if problem is not None:
        out.reasons.append(f"farkas: {problem}")
        return
    out.farkas_checked = True
    out.farkas_summary = farkas_weights([i for i, _ in expected], multipliers, reading.ids)
    out.farkas_bound = combine(rows, multipliers).bound


# --------------------------------------------------------------------------- against the spec


def _load_spec(spec_paths: Sequence[str]) -> tuple[Contract, Any, tuple[Any, ...]]:
    """The spec, its type information and its timed blocks: bad input (exit 2) whatever
    the certificate is."""
    from derivative._typecheck import check
    from derivative.grammar import load_set

    contract, timed = load_set(spec_paths)
    return contract, check(contract), timed


def _timed_spec(
    cert: Certificate, static: StaticCheck, spec: tuple[Contract, Any, tuple[Any, ...]]
) -> tuple[Contract, Any] | None:
    """For a certificate of a ``timed`` block (its spec is ``SPEC.BLOCK@DEPTH``): the
    block unrolled again from the spec at that depth, with the input trace its
    ``input.*`` members pin, so that every member is compared with what the spec's own
    requirement unrolls to.  None: not a timed one."""
    from derivative._timed_unroll import contract_at
    from derivative._typecheck import check

    contract, _, timed = spec
    named, _, depth_text = cert.spec.name.rpartition("@")
    prefix, _, block = named.rpartition(".")
    found = [c for c in timed if c.name == block and prefix == contract.name]
    if not found or static.reading is None or not depth_text.isdigit():
        return None
    depth = int(depth_text)
    if not 0 < depth <= 200:
        return None
    # only inputs may be pinned (a pinned output would make any conflict "real"): a
    # certificate that pins anything else is compared with the untimed spec, and fails
    inputs = {f"{s.name}__{t}" for s in found[0].inputs() for t in range(depth)}
    fixed: dict[str, Expr] = {}
    for ident, expr in zip(static.reading.ids, static.reading.exprs, strict=True):
        if not ident.startswith("input."):
            continue
        name = ident[len("input."):]
        if name not in inputs or not isinstance(expr, (Compare, BoolOp)):
            return None
        fixed[name] = expr.operands[1]
    unrolled = contract_at(contract, found[0], depth, fixed)
    return unrolled, check(unrolled)


def _spec_explanation(cert: Certificate, reading: Reading, static: StaticCheck,
                      by_id: Mapping[str, Obligation]) -> list[str]:
    """With the spec, the explanation is exact: the spec says which members are examples
    and which exception each raises example names."""
    if cert.farkas is not None and not static.farkas_checked:
        return []
    members = [by_id[i] for i in reading.ids if i in by_id]
    raises = {o.id: o.exception for o in members if o.kind == "example" and o.exception}
    examples = [o.id for o in members if o.kind == "example"]
    expected = _explanation(cert, reading, static, raises, examples)
    if expected is None or expected == cert.explanation:
        return []
    return [f"the explanation is not the one the spec's core gives: expected {expected!r}"]


def _spec_checks(cert: Certificate, static: StaticCheck, spec: tuple[Contract, Any]) -> list[str]:
    contract, info = spec
    reading = static.reading
    assert reading is not None
    reasons: list[str] = []
    identity = contract_identity(contract)
    if identity != cert.spec.sha256:
        reasons.append(
            f"the spec's identity is {identity}, the certificate is about {cert.spec.sha256}"
        )
    if (contract.name, contract.version) != (cert.spec.name, cert.spec.version):
        reasons.append(
            f"the spec is {contract.name} version {contract.version}, the certificate is "
            f"about {cert.spec.name} version {cert.spec.version}"
        )
    by_id = {o.id: o for o in contract.obligations}
    subject = reading.subject
    for ident, expr in zip(reading.ids, reading.exprs, strict=True):
        obligation = by_id.get(ident)
        if obligation is None:
            obligation = synthetic_obligation(ident, subject, info)
            if obligation is None:
                reasons.append(f"core member {ident} is not an obligation of the spec")
                continue
        else:
            problem = _fits_kind(cert.kind, obligation, subject)
            if problem:
                reasons.append(f"core member {ident}: {problem}")
        expected = core_formula(obligation, contract, info.exceptions)
        if expr_json(expected) != expr_json(expr):
            reasons.append(
                f"core member {ident} asserts {to_source(expr)}, "
                f"but the spec's {ident} means {to_source(expected)}"
            )
    reasons.extend(_declaration_checks(cert, info))
    reasons.extend(_spec_explanation(cert, reading, static, by_id))
    if cert.kind == "contradicting_example":
        reasons.extend(_example_checks(reading, [by_id[i] for i in reading.ids if i in by_id]))
    if cert.kind == "unrealizable" and reading.witness is not None and subject is not None:
        reasons.extend(_witness_checks(contract, reading, subject, info))
    return reasons


def synthetic_obligation(ident: str, subject: str | None, info: Any) -> Obligation | None:
    """The range obligation a ``X.range`` id stands for in ``subject`` (None: no such range)."""
    if not ident.endswith(RANGE_SUFFIX):
        return None
    stem = ident[: -len(RANGE_SUFFIX)]
    if subject is None:
        ty = info.param_types.get(stem)
        return None if ty is None else range_obligation(stem, ty)
    prefix = subject + "."
    if not stem.startswith(prefix):
        return None
    name = stem[len(prefix) :]
    signature = info.signatures.get(subject)
    if signature is None:
        return None
    if name == "result":
        return range_obligation("result", signature.returns, owner=subject)
    for pname, ty, _ in signature.params:
        if pname == name:
            return range_obligation(name, ty, owner=subject)
    return None


_ALLOWED: dict[str, tuple[str, ...]] = {
    "inconsistent_requirements": ("requirement",),
    "unsatisfiable_precondition": ("requires",),
    "contradicting_example": ("requires", "ensures", "raises", "example"),
    "unrealizable": ("requires", "ensures", "raises"),
}


def _fits_kind(kind: str, obligation: Obligation, subject: str | None) -> str | None:
    if obligation.kind not in _ALLOWED[kind]:
        return f"a {obligation.kind} obligation cannot be part of a {kind} core"
    if obligation.owner != subject:
        where = obligation.owner or "the global requirements"
        return f"it belongs to {where}, not to {subject or 'the global requirements'}"
    return None


def _declaration_checks(cert: Certificate, info: Any) -> list[str]:
    reasons: list[str] = []
    for d in cert.declarations:
        if isinstance(d, ParamDeclaration):
            ty = info.param_types.get(d.name)
            if ty is None or type_text(ty) != d.type:
                reasons.append(f"declaration of param {d.name} differs from the spec")
        elif isinstance(d, ConstDeclaration):
            ty = info.const_types.get(d.name)
            ok = ty is not None and type_text(ty) == d.type
            if ok:
                try:
                    ok = decode(d.value, ty) == info.const_values.get(d.name)
                except ValueError_:
                    ok = False
            if not ok:
                reasons.append(f"declaration of const {d.name} differs from the spec")
        elif isinstance(d, EnumDeclaration):
            enum = info.enums.get(d.name)
            if enum is None or list(enum.members) != list(d.members):
                reasons.append(f"declaration of enum {d.name} differs from the spec")
        elif isinstance(d, FunctionDeclaration):
            sig = info.signatures.get(d.name)
            ok = sig is not None and type_text(sig.returns) == d.returns
            if ok:
                ok = [(n, type_text(t)) for n, t, _ in sig.params] == [
                    (p.name, p.type) for p in d.params
                ]
            if not ok:
                reasons.append(f"declaration of {d.name} differs from the spec's signature")
    return reasons


def _example_checks(reading: Reading, members: Sequence[Obligation]) -> list[str]:
    """A contradicting example's core holds an example, called at the witness input."""
    examples = [o for o in members if o.kind == "example"]
    if not examples:
        return ["a contradicting_example core has no example in it"]
    reasons: list[str] = []
    evaluator = Evaluator(reading.const_values)
    for o in examples:
        call = o.expr if isinstance(o.expr, Call) else None
        if isinstance(o.expr, Compare) and isinstance(o.expr.operands[0], Call):
            call = o.expr.operands[0]
        if call is None or len(call.args) != len(reading.variables):
            reasons.append(f"example {o.id} is not a call of {reading.subject}")
            continue
        for name, arg in zip(reading.variables, call.args, strict=True):
            value = evaluator.eval(arg, {})
            if value is UNDEFINED or value != (reading.witness or {}).get(name, UNDEFINED):
                reasons.append(f"example {o.id}: the argument {name} is not the witness input")
    return reasons


def _witness_checks(contract: Contract, reading: Reading, subject: str, info: Any) -> list[str]:
    """An ``unrealizable`` witness must be a valid input: of the declared types (ranges
    and patterns included), satisfying every requires clause and no raises condition."""
    from derivative._evalops import conforms

    reasons: list[str] = []
    env: dict[str, Value] = dict(reading.witness or {})
    for name, ty, _ in info.signatures[subject].params:
        if name in env and not conforms(env[name], ty):
            reasons.append(f"the witness input {name} is not a value of its type {ty.show()}")
    for o in contract.obligations:
        if o.owner != subject:
            continue
        if o.kind == "requires":
            ok, why = member_holds(reading, o.expr, env)
            if not ok:
                reasons.append(f"the witness input is not valid: requires {o.id} fails ({why})")
        elif o.kind == "raises":
            holds, _ = member_holds(reading, o.expr, env)
            if holds:
                reasons.append(
                    f"the witness input satisfies the raises condition {o.id}, so the call "
                    f"may raise there"
                )
    return reasons


# --------------------------------------------------------------------------- verify


def _read(cert_json: object) -> tuple[Certificate | None, list[str]]:
    """Steps 0 and 1: the certificate model and the reasons found so far (None: the
    document is not one, and the reasons say why)."""
    if not isinstance(cert_json, dict):
        return None, ["a certificate is a JSON object"]
    problems = json_problems(cert_json)
    if problems:
        return None, [f"not a certificate's JSON: {p}" for p in problems]
    if cert_json.get("format") != CERTIFICATE_FORMAT:
        found = cert_json.get("format")
        said = ("it has no \"format\" field" if found is None else
                f"its \"format\" is {json.dumps(found, ensure_ascii=False)[:80]}")
        return None, [f"not a {CERTIFICATE_FORMAT} document: {said}"]
    reasons: list[str] = []
    try:
        digest = payload_sha256(cert_json)
        if digest != cert_json.get("sha256"):
            reasons.append(
                "sha256 is not the hash of the certificate's content: it was edited after "
                "it was written"
            )
    except (TypeError, ValueError) as err:
        reasons.append(f"the certificate cannot be hashed canonically: {err}")
    # Untrusted: validated against the model (pydantic, imported here only), then read
    # as the plain values every check works on.
    from pydantic import ValidationError

    from ._model import Certificate as CertificateModel

    try:
        model = CertificateModel.model_validate(cert_json)
    except ValidationError as err:
        for e in err.errors()[:20]:
            where = ".".join(str(p) for p in e["loc"])
            reasons.append(f"{where}: {e['msg']}")
        return None, reasons
    return from_json(model.model_dump(mode="json")), reasons


def verify(
    cert_json: object,
    spec_paths: Sequence[str] | None = None,
    *,
    solvers: Sequence[str] = SOLVERS,
    timeout: float = DEFAULT_TIMEOUT,
) -> VerifyResult:
    """Check a certificate (parsed JSON) independently; see the module docstring.

    Bad input other than the certificate itself (a missing or broken spec file) raises
    the usual ``DerivativeError``, before the certificate is looked at; everything wrong
    with the certificate is a reason.
    A solver killed by the wall-clock safety net raises ``OperationalTimeout``.
    """
    spec = _load_spec(spec_paths) if spec_paths else None
    cert, reasons = _read(cert_json)
    if cert is None:
        return VerifyResult(False, reasons)
    static = static_checks(cert)
    reasons.extend(static.reasons)
    notes = list(static.notes)
    if static.farkas_checked:
        notes.append("farkas: the weighted rows add up to 0 <= c with c < 0 (exact arithmetic)")
    if spec is not None and static.reading is not None:
        reasons.extend(_spec_checks(cert, static, _timed_spec(cert, static, spec) or spec[:2]))
    runs: list[SolverRun] = []
    if solvers:
        # exactly as the builder runs them (cvc5 gives its proof), so that the recorded
        # checks and proof can be re-derived
        proof_from = "cvc5" if "cvc5" in solvers else None
        runs = run_solvers(cert.smtlib, solvers, proof_from=proof_from, timeout=timeout)
    hung = timed_out(runs)
    if hung:
        raise OperationalTimeout(
            "the re-check did not finish: "
            + "; ".join(r.describe() for r in hung)
            + "; no verdict (run it again, on a less loaded machine)"
        )
    confirmed = False
    for run in runs:
        if run.result == "unsat":
            confirmed = True
        elif run.result == "sat":
            reasons.append(f"{run.describe()}: the core is satisfiable, so it is no conflict")
        elif run.result == "missing":
            notes.append(f"{run.solver} is not installed: the script was not re-checked with it")
        else:
            notes.append(f"{run.describe()}")
    records = check_records(cert.checks, cert.proof, runs)
    reasons.extend(records.reasons)
    notes.extend(records.notes)
    if not (confirmed or static.farkas_checked):
        reasons.append(
            "no solver confirmed that the script is unsatisfiable and there is no valid "
            "Farkas certificate"
        )
    return VerifyResult(
        valid=not reasons,
        reasons=reasons,
        checks=runs,
        notes=notes,
        farkas_checked=static.farkas_checked,
        proof=records.proof,
    )


_ = DerivativeError
