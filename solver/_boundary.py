"""Solver-chosen inputs: triggers, boundary inputs, and valid inputs near a seed.

The generated tests must *exercise* every obligation, not just run it: every ``raises``
condition, every ``when``/``implies`` antecedent and each boundary of every comparison
over the inputs must be hit by at least one input (ARCHITECTURE.md §3, evidence
sufficiency).  Random inputs rarely land on ``len(password) == 12`` or inside a narrow
``raises`` condition, so Z3 computes one input per trigger, once, and the engine and
the generated pytest module feed them as explicit examples.  A trigger that Z3 proves
impossible under the owner's ``requires`` and parameter types is *vacuous* (nothing to
exercise); one it cannot decide is *unknown* and is left to random inputs.

Triggers, per obligation of a function or operation (``requires``, ``ensures``,
``raises``), over expressions whose free names are the owner's parameters and
constants (never ``result``, a bound variable or ``count``):

- ``raises E when C``: ``C`` (solved first together with "no other raises condition
  holds", so that the input isolates the clause, then alone);
- every ``A implies B`` (also ``when A, B``): ``A``;
- every comparison link ``a OP b``: for ``int`` and ``date`` operands ``a - b == k`` for
  ``k`` in -1, 0, 1 (the boundary and one step either side); for ``x in LO..HI`` the
  same around ``LO`` and ``HI``; for other operands ``a == b`` (reals, strings, bools,
  enums, lists) and, for ``in``/``not in`` over a list or string, ``a in b``.

The module also gives the Z3-backed generator of valid inputs (``Space.near``): for a
seed drawn by Hypothesis it asks Z3 for a model of the preconditions that keeps as much
of the seed as it can (numbers inside growing boxes around the seed's values, strings
and lists keeping the seed's length and characters), dropping the conflicting wishes
through unsat cores.  Hypothesis still drives the draw and the shrinking (a smaller
seed gives a smaller model), and no draw is rejected while the preconditions are
satisfiable.  When nothing near the seed is found, a pool of distinct models (blocking
clauses, computed once) is the fallback.
"""

from __future__ import annotations

import contextlib
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from typing import Any, Final, Literal

import z3

from derivative._ast import (
    BinOp,
    BoolOp,
    Call,
    Compare,
    Count,
    Expr,
    Generator,
    IfExpr,
    IntLit,
    Name,
    Obligation,
    Quantifier,
    Range,
    Result,
    StrLit,
    Unary,
)
from derivative._canon import contract_identity
from derivative._errors import DerivativeError
from derivative._printer import to_source
from derivative._typecheck import TypeInfo
from derivative._types import TAny, TBool, TDate, TEnum, TInt, TList, TReal, TStr, Ty, base
from derivative._values import EnumValue
from derivative._walk import children, free_names, walk

from ._decode import from_model
from ._definitions import regex_for
from ._encode import Encoder
from ._terms import DATE_MAX, DATE_MIN, Term, intrinsic_domain, literal, var
from ._z3util import Unsupported, make_solver, str_val

__all__ = [
    "Plan",
    "Space",
    "Trigger",
    "TriggerStatus",
    "clear_cache",
    "plan_for",
    "to_candidate_space",
]

Z = Any
Admits = Callable[[Mapping[str, object]], bool]
TriggerStatus = Literal["possible", "vacuous", "unknown"]
TriggerKind = Literal["raises", "normal", "antecedent", "boundary", "membership"]

RLIMIT: Final = 4_000_000
"""Deterministic resource limit of one trigger query (Z3's rlimit, not wall-clock)."""
NEAR_RLIMIT: Final = 1_500_000
"""Resource limit of one query of the near-seed generator (it runs per draw)."""
TIMEOUT_MS: Final = 10_000
"""Wall-clock safety net only; the rlimit decides."""
POOL_SIZE: Final = 12
NEAR_CACHE: Final = 4096
_MAX_SOFT_ITEMS: Final = 24
_BOXES: Final = (0, 4, 64, 4096)

# Z3's Python API shares one context; queries from several threads must not interleave.
_Z3_LOCK = threading.RLock()


class SpaceError(DerivativeError):
    """An owner's input space could not be built (never raised for unsupported specs)."""


# --------------------------------------------------------------------------- triggers


@dataclass
class Trigger:
    """A condition over inputs that some input must make true (see the module docstring).

    ``status`` is what the solver found: ``possible`` (with ``input``, a valid input
    hitting it), ``vacuous`` (proved impossible for valid inputs) or ``unknown``.
    """

    id: str
    obligation: str
    kind: TriggerKind
    expr: Expr
    description: str
    status: TriggerStatus = "unknown"
    input: dict[str, object] | None = None
    reason: str | None = None
    context: tuple[Expr, ...] = ()
    """Conditions under which the trigger decides its obligation (solved for first)."""


@dataclass
class Plan:
    """What the solver computed once for one owner: its triggers and explicit inputs."""

    owner: str
    triggers: list[Trigger] = field(default_factory=list)
    inputs: list[dict[str, object]] = field(default_factory=list)
    """Solver-chosen valid inputs (one per possible trigger, deduplicated), then the
    examples' inputs; in the language's representation with reals as floats."""
    origins: list[str] = field(default_factory=list)
    """Why each of ``inputs`` is there, when not for a trigger (an example, a range edge)."""
    pool: list[dict[str, object]] = field(default_factory=list)
    """A few distinct valid inputs (blocking clauses): the fallback of ``Space.near``."""
    encodable: bool = True
    reason: str | None = None
    unknowns: list[str] = field(default_factory=list)

    def triggers_of(self, obligation_id: str) -> list[Trigger]:
        return [t for t in self.triggers if t.obligation == obligation_id]


def _int(value: int) -> Expr:
    return IntLit(value=value)


def _diff_is(a: Expr, b: Expr, k: int) -> Expr:
    return Compare(ops=("==",), operands=(BinOp(op="-", left=a, right=b), _int(k)))


def _over_inputs(expr: Expr, allowed: frozenset[str]) -> bool:
    """Whether ``expr`` is a function of the inputs alone (no result, count, bound var)."""
    for n in walk(expr):
        if isinstance(n, (Result, Count)):
            return False
    return free_names(expr) <= allowed


def find_triggers(
    info: TypeInfo, owner: str, obligations: Sequence[Obligation]
) -> list[Trigger]:
    """Every trigger of the owner's ``requires``/``ensures``/``raises`` obligations.

    Each trigger also carries its *context*: the conditions under which it decides
    its obligation (the other operands of an enclosing ``and`` are true, of an ``or``
    false, the antecedent of an ``implies`` holds, the condition of an ``if`` selects
    its branch), as far as they are over the inputs.  The solver looks for an input
    hitting the trigger in its context first: ``len(name) == 16`` is only worth
    testing where the rest of ``3 <= len(name) <= 16 and matches(name, RE)`` holds.
    """
    sig = info.signatures[owner]
    scope = {n: t for n, t, _ in sig.params}
    allowed = frozenset(scope) | frozenset(info.const_values)
    full_scope: dict[str, Ty] = dict(info.const_types)
    full_scope.update(scope)
    out: list[Trigger] = []
    raises = [o for o in obligations if o.kind == "raises"]
    over = all(_over_inputs(r.expr, allowed) for r in raises)
    normal = normal_condition(raises) if over else None
    for o in obligations:
        if o.kind not in ("requires", "ensures", "raises"):
            continue
        seen: set[str] = set()

        def add(kind: TriggerKind, expr: Expr, context: tuple[Expr, ...] = (),
                o: Obligation = o, seen: set[str] = seen) -> None:
            text = to_source(expr)
            key = f"{kind}:{text}"
            if key in seen:
                return
            seen.add(key)
            ctx = tuple(c for c in context if _over_inputs(c, allowed))
            out.append(Trigger(f"{o.id}#{len(seen)}", o.id, kind, expr, text, context=ctx))

        if o.kind == "raises" and _over_inputs(o.expr, allowed):
            add("raises", o.expr)
        if o.kind == "ensures" and normal is not None:
            add("normal", normal)

        def visit(n: Expr, ctx: tuple[Expr, ...], add: Any = add) -> None:
            if isinstance(n, (Quantifier, Generator)):
                for c in (n.lo, n.hi) if isinstance(n, Quantifier) else (n.iterable,):
                    visit(c, ctx)
                return  # the body sees a bound variable
            if isinstance(n, BoolOp):
                if n.op == "and":
                    visit(n.left, (*ctx, n.right))
                    visit(n.right, (*ctx, n.left))
                elif n.op == "or":
                    visit(n.left, (*ctx, _not(n.right)))
                    visit(n.right, (*ctx, _not(n.left)))
                elif n.op == "implies":
                    if _over_inputs(n.left, allowed):
                        add("antecedent", n.left, ctx)
                    visit(n.left, ctx)
                    visit(n.right, (*ctx, n.left))
                else:
                    visit(n.left, ctx)
                    visit(n.right, ctx)
                return
            if isinstance(n, IfExpr):
                visit(n.cond, ctx)
                visit(n.then, (*ctx, n.cond))
                visit(n.orelse, (*ctx, _not(n.cond)))
                return
            if isinstance(n, Compare):
                for i, op in enumerate(n.ops):
                    a, b = n.operands[i], n.operands[i + 1]
                    for kind, t in _link_triggers(info, full_scope, op, a, b, allowed):
                        add(kind, t, ctx)
            if isinstance(n, BinOp) and n.op in ("//", "%"):
                for t in _floor_triggers(info, full_scope, n, allowed):
                    add("boundary", t, ctx)
            for c in children(n):
                visit(c, ctx)

        visit(o.expr, ())
    return out


def _floor_triggers(
    info: TypeInfo, scope: Mapping[str, Ty], n: BinOp, allowed: frozenset[str]
) -> Iterator[Expr]:
    """The edges of ``a // c`` and ``a % c`` (``c`` a positive integer constant): where
    ``a % c`` is 0 and ``c - 1``, the quotient steps."""
    if not (_over_inputs(n.left, allowed) and _over_inputs(n.right, allowed)):
        return
    if free_names(n.right) - frozenset(info.const_values):
        return
    if not isinstance(_type(info, scope, n.left), TInt):
        return
    from derivative._eval import evaluate

    c = evaluate(n.right, {}, info.const_values)
    if not isinstance(c, int) or isinstance(c, bool) or not 1 < c <= 10**9:
        return
    rem = BinOp(op="%", left=n.left, right=_int(c))
    for k in (0, c - 1):
        yield Compare(ops=("==",), operands=(rem, _int(k)))


_MISS_CHARS: Final = (" ", "+", "-", "_", "\n", "\u0663", "a")
"""Characters that make a near miss of a regex where Python is lenient: ``int(" 5")``,
``int("+5")``, ``int("-5")``, ``int("1_0")``, ``int("5")`` followed by a newline and the
ARABIC-INDIC DIGIT THREE are all numbers to Python, and Python's ``\\d`` without
``re.ASCII`` matches that digit too."""


def _near_misses(
    info: TypeInfo, owner: str, space: Space, known: Sequence[Mapping[str, object]]
) -> Iterator[tuple[dict[str, object], str]]:
    """Inputs one character away from matching a ``matches(p, RE)`` of the owner.

    For each such call on a string parameter ``p``: take a known valid input whose
    ``p`` matches, and put one of ``_MISS_CHARS`` before, after or inside it.  These
    sit just outside the regex, where an implementation that leans on ``int()``,
    ``str.isdigit()`` or ``.strip()`` instead of the exact regex goes wrong.  No solver
    is needed; every candidate must still be a valid input (``admits``).
    """
    from derivative._regex import fullmatch

    params = {n for n, _ in space.params}
    seen: set[tuple[str, str]] = set()
    for o in info.contract.obligations_of(owner):
        for n in walk(o.expr):
            if not (isinstance(n, Call) and n.func == "matches" and len(n.args) == 2):
                continue
            subject, pattern = n.args
            if not (isinstance(subject, Name) and subject.id in params
                    and isinstance(pattern, StrLit)):
                continue
            key = (subject.id, pattern.value)
            if key in seen:
                continue
            seen.add(key)
            base_input = next(
                (dict(i) for i in known
                 if isinstance(i.get(subject.id), str)
                 and fullmatch(pattern.value, str(i[subject.id]))),
                None,
            )
            if base_input is None:
                continue
            member = str(base_input[subject.id])
            for ch in _MISS_CHARS:
                for text in (ch + member, member + ch, member[:1] + ch + member[1:]):
                    if fullmatch(pattern.value, text):
                        continue
                    candidate = dict(base_input)
                    candidate[subject.id] = text
                    if space.admits(candidate):
                        yield candidate, f"a near miss of {to_source(pattern)}"
                        break


def _not(e: Expr) -> Expr:
    if isinstance(e, Unary) and e.op == "not":
        return e.operand
    return Unary(op="not", operand=e)


def normal_condition(raises: Sequence[Obligation]) -> Expr | None:
    """``not (C1 or C2 ...)``: no ``raises`` condition holds (None without raises)."""
    if not raises:
        return None
    if len(raises) == 1 and isinstance(raises[0].expr, Unary) and raises[0].expr.op == "not":
        return raises[0].expr.operand
    cond: Expr = raises[0].expr
    for o in raises[1:]:
        cond = BoolOp(op="or", left=cond, right=o.expr)
    return Unary(op="not", operand=cond)


def _type(info: TypeInfo, scope: Mapping[str, Ty], e: Expr) -> Ty | None:
    try:
        return base(info.type_of(e, scope))
    except Exception:  # a sub-expression the checker cannot type alone
        return None


def _link_triggers(
    info: TypeInfo,
    scope: Mapping[str, Ty],
    op: str,
    a: Expr,
    b: Expr,
    allowed: frozenset[str],
) -> Iterator[tuple[TriggerKind, Expr]]:
    if not _over_inputs(a, allowed):
        return
    if isinstance(b, Range):
        if op in ("in", "not in") and _over_inputs(b.lo, allowed) and _over_inputs(
            b.hi, allowed
        ):
            for edge in (b.lo, b.hi):
                for k in (0, -1, 1):
                    yield "boundary", _diff_is(a, edge, k)
        return
    if not _over_inputs(b, allowed):
        return
    if free_names(a) | free_names(b) <= frozenset(info.const_values):
        return  # constants only: nothing an input can change
    ta, tb = _type(info, scope, a), _type(info, scope, b)
    if ta is None or tb is None:
        return
    if op in ("in", "not in"):
        yield "membership", Compare(ops=("in",), operands=(a, b))
        return
    if isinstance(ta, (TInt, TDate)) and type(ta) is type(tb):
        for k in (0, -1, 1):
            yield "boundary", _diff_is(a, b, k)
        return
    yield "boundary", Compare(ops=("==",), operands=(a, b))


# --------------------------------------------------------------------------- values


def to_candidate_space(value: object, ty: Ty) -> object:
    """A model value as the tests pass it: reals become floats (LANGUAGE.md §3)."""
    if isinstance(ty, TReal) and isinstance(value, (Fraction, int)) and not isinstance(
        value, bool
    ):
        return float(value)
    if isinstance(ty, TList) and isinstance(value, tuple):
        return tuple(to_candidate_space(v, ty.elem) for v in value)
    return value


def _refinement(value: Z, ty: Ty) -> list[Z]:
    """Z3 constraints of a declared type's refinement (ranges, regexes, element types)."""
    out: list[Z] = [intrinsic_domain(value, ty)]
    if isinstance(ty, TInt):
        if ty.lo is not None:
            out.append(value >= ty.lo)
        if ty.hi is not None:
            out.append(value <= ty.hi)
    elif isinstance(ty, TStr) and ty.pattern is not None:
        out.append(z3.InRe(value, regex_for(ty.pattern)))
    elif isinstance(ty, TList) and ty.elem != base(ty.elem):
        i = z3.FreshInt("k")
        inner = z3.And(*_refinement(value[i], ty.elem))
        out.append(z3.ForAll([i], z3.Implies(z3.And(i >= 0, i < z3.Length(value)), inner)))
    return out


# --------------------------------------------------------------------------- the space


class Space:
    """The valid inputs of one owner as Z3 sees them.

    Variables are the owner's parameters; asserted are their types' refinements and
    every ``requires``.  ``encodable`` is false (with ``reason``) when some requires
    cannot be encoded exactly; then nothing here answers and callers fall back to
    random inputs and filters.
    """

    def __init__(self, info: TypeInfo, owner: str, admits: Admits) -> None:
        self.info = info
        self.owner = owner
        self.admits = admits
        sig = info.signatures[owner]
        self.params: tuple[tuple[str, Ty], ...] = tuple((n, t) for n, t, _ in sig.params)
        self.requires = tuple(
            o for o in info.contract.obligations_of(owner) if o.kind == "requires"
        )
        self.encodable = True
        self.reason: str | None = None
        self._near_cache: OrderedDict[tuple[object, ...], dict[str, object] | None] = (
            OrderedDict()
        )
        self._pool: list[dict[str, object]] | None = None
        self.near_calls = 0
        self.near_solved = 0
        with _Z3_LOCK:
            try:
                self.vars: dict[str, Term] = {n: var(f"{n}", t) for n, t in self.params}
                consts = {
                    n: (v, info.const_types[n]) for n, v in info.const_values.items()
                }
                self.encoder = Encoder(self.vars, consts=consts, enums=info.enums)
                base_facts: list[Z] = []
                for n, t in self.params:
                    base_facts.extend(_refinement(self.vars[n].value, t))
                for o in self.requires:
                    base_facts.append(self.encoder.encode(o.expr).holds)
                self.base: list[Z] = base_facts
            except (Unsupported, z3.Z3Exception, RecursionError) as exc:
                self.encodable = False
                self.reason = str(exc) or type(exc).__name__
                self.base = []

    # ------------------------------------------------------------------ queries

    def encode(self, expr: Expr) -> Z:
        """``expr`` as a Z3 condition (defined and true) over the parameters."""
        with _Z3_LOCK:
            return self.encoder.encode(expr).holds

    def solve(self, *extra: Z) -> tuple[str, dict[str, object] | None]:
        """``("sat", input)``, ``("unsat", None)`` or ``("unknown", None)``.

        A small portfolio with deterministic resource limits: Z3 briefly, cvc5 briefly
        (much faster on string lengths), then each with a larger limit.  A model is
        only used if the evaluator agrees that it is a valid input; ``unsat`` from
        either solver makes a trigger vacuous.
        """
        if not self.encodable:
            return "unknown", None
        strings = self._has_strings()
        for solver, limit in _PORTFOLIO:
            if solver == "cvc5" and not strings:
                continue
            if solver == "z3":
                status, values = self._z3_solve(extra, limit)
            else:
                status, values = self._cvc5_solve(extra, limit)
            if status != "unknown":
                return status, values
        return "unknown", None

    def _has_strings(self) -> bool:
        return any(_has_seq(t) for _, t in self.params)

    def _z3_solve(self, extra: Sequence[Z], rlimit: int) -> tuple[str, dict[str, object] | None]:
        with _Z3_LOCK:
            s = make_solver(rlimit, TIMEOUT_MS)
            s.add(*self.base, *extra)
            try:
                r = s.check()
            except z3.Z3Exception:
                return "unknown", None
            if r == z3.unsat:
                return "unsat", None
            if r != z3.sat:
                return "unknown", None
            return self._read(s.model())

    def _cvc5_solve(self, extra: Sequence[Z], rlimit: int) -> tuple[str, dict[str, object] | None]:
        with _Z3_LOCK:
            holder = z3.Solver()
            holder.add(*self.base, *extra)
            text = holder.to_smt2()
        try:
            import cvc5
        except ImportError:  # pragma: no cover - cvc5 is a dependency
            return "unknown", None
        try:
            tm = cvc5.TermManager()
            solver = cvc5.Solver(tm)
            for key, value in (("produce-models", "true"), ("strings-exp", "true"),
                               ("rlimit-per", str(rlimit)), ("tlimit-per", str(TIMEOUT_MS))):
                solver.setOption(key, value)
            solver.setLogic("ALL")
            symbols = cvc5.SymbolManager(tm)
            parser = cvc5.InputParser(solver, symbols)
            parser.setStringInput(
                cvc5.InputLanguage.SMT_LIB_2_6, text.replace("(check-sat)", ""), "query"
            )
            while True:
                cmd = parser.nextCommand()
                if cmd.isNull():
                    break
                cmd.invoke(solver, symbols)
            result = solver.checkSat()
            if result.isUnsat():
                return "unsat", None
            if not result.isSat():
                return "unknown", None
            terms = {str(t).strip("|"): t for t in symbols.getDeclaredTerms()}
            values = {
                n: to_candidate_space(_from_cvc5(solver.getValue(terms[n]), t), t)
                for n, t in self.params
            }
        except Exception:  # a construct cvc5 does not read, a value we cannot convert
            return "unknown", None
        if not self._valid(values):
            return "unknown", None
        return "sat", values

    def _read(self, model: Z) -> tuple[str, dict[str, object] | None]:
        try:
            values = {
                n: to_candidate_space(from_model(model, self.vars[n].value, t), t)
                for n, t in self.params
            }
        except (Unsupported, z3.Z3Exception, ValueError, OverflowError):
            return "unknown", None
        if not self._valid(values):
            return "unknown", None
        return "sat", values

    def _valid(self, values: Mapping[str, object]) -> bool:
        """The evaluator (the reference meaning) must agree that a model is valid."""
        return self.admits(values)

    # ------------------------------------------------------------------ the pool

    def pool(self, size: int = POOL_SIZE) -> list[dict[str, object]]:
        """Up to ``size`` distinct valid inputs, spread out; computed once.

        Models near deterministic seeds spread over several orders of magnitude (so
        that the fallback of ``near`` and the standalone module's known inputs are not
        all next to zero), then distinct models by blocking clauses to fill up.
        """
        if self._pool is not None:
            return self._pool
        found: list[dict[str, object]] = []
        keys: set[object] = set()

        def add(values: dict[str, object] | None) -> None:
            if values is None:
                return
            k = tuple(_key(values.get(n)) for n, _ in self.params)
            if k not in keys:
                keys.add(k)
                found.append(values)

        if self.encodable:
            rng = random.Random(20260301)
            for _ in range(size):
                seed = {n: _spread(rng, t) for n, t in self.params}
                add(self._near(seed, frozenset(), ()))
            if len(found) < size // 2:
                self._blocking(size - len(found), add)
        self._pool = found
        return found

    def _blocking(self, count: int, add: Callable[[dict[str, object] | None], None]) -> None:
        with _Z3_LOCK:
            s = make_solver(RLIMIT, TIMEOUT_MS)
            s.add(*self.base)
            for _ in range(count):
                try:
                    if s.check() != z3.sat:
                        break
                except z3.Z3Exception:
                    break
                m = s.model()
                status, values = self._read(m)
                if status == "sat":
                    add(values)
                block = [
                    self.vars[n].value != m.eval(self.vars[n].value, model_completion=True)
                    for n, _ in self.params
                ]
                if not block:
                    break
                s.add(z3.Or(*block))

    # ------------------------------------------------------------------ near a seed

    def near(
        self,
        seed: Mapping[str, object],
        fixed: frozenset[str] = frozenset(),
        region: tuple[str, Sequence[Z]] | None = None,
    ) -> dict[str, object] | None:
        """A valid input close to ``seed`` (see the module docstring), or None.

        Names in ``fixed`` keep the seed's value exactly (``from op`` parameters);
        ``region`` is a named extra condition the input must meet (e.g. "no raises
        condition holds").  The answer depends on the seed only (a fresh solver per
        question, and a cache), so Hypothesis can replay and shrink a draw.
        """
        if not self.encodable:
            return None
        try:
            key: tuple[object, ...] | None = (
                tuple(_key(seed.get(n)) for n, _ in self.params),
                tuple(sorted(fixed)),
                region[0] if region else "",
            )
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in self._near_cache:
            self._near_cache.move_to_end(key)
            return self._near_cache[key]
        self.near_calls += 1
        result = self._near(seed, fixed, tuple(region[1]) if region else ())
        if result is not None:
            self.near_solved += 1
        if key is not None:
            self._near_cache[key] = result
            if len(self._near_cache) > NEAR_CACHE:
                self._near_cache.popitem(last=False)
        return result

    def _near(
        self, seed: Mapping[str, object], fixed: frozenset[str], extra: tuple[Z, ...]
    ) -> dict[str, object] | None:
        with _Z3_LOCK:
            s = make_solver(NEAR_RLIMIT, TIMEOUT_MS)
            s.add(*self.base, *extra)
            wishes: list[tuple[Z, Z]] = []
            for n, t in self.params:
                if n not in seed:
                    continue
                v = self.vars[n].value
                try:
                    if n in fixed:
                        s.add(v == literal(_as_value(seed[n], t), t))
                    else:
                        wishes.extend(self._wishes(v, t, seed[n]))
                except (Unsupported, z3.Z3Exception, ValueError, OverflowError,
                        AssertionError, KeyError):
                    if n in fixed:
                        return None
            for lit, cond in wishes:
                s.add(z3.Implies(lit, cond))
            active = [lit for lit, _ in wishes]
            for _ in range(6):
                try:
                    r = s.check(*active)
                except z3.Z3Exception:
                    return None
                if r == z3.sat:
                    status, values = self._read(s.model())
                    return values if status == "sat" else None
                if r != z3.unsat or not active:
                    return None
                core = {c.get_id() for c in s.unsat_core()}
                active = [a for a in active if a.get_id() not in core] if core else []
        return None

    def _wishes(self, v: Z, ty: Ty, value: object) -> list[tuple[Z, Z]]:
        """(literal, condition) pairs: "stay close to the seed's ``value``"."""
        out: list[tuple[Z, Z]] = []

        def wish(cond: Z) -> None:
            out.append((z3.FreshBool("w"), cond))

        if isinstance(ty, (TInt, TDate)):
            n = value.toordinal() if isinstance(value, date) else value
            if not isinstance(n, int) or isinstance(n, bool):
                return out
            if isinstance(ty, TDate):
                n = min(max(n, DATE_MIN), DATE_MAX)
            for w in _BOXES:
                wish(z3.And(v >= n - w, v <= n + w))
        elif isinstance(ty, TReal):
            if isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
                f = Fraction(value)
                for w in _BOXES:
                    wish(z3.And(v >= _real(f - w), v <= _real(f + w)))
        elif isinstance(ty, TStr):
            if isinstance(value, str):
                wish(z3.Length(v) == len(value))
                for i, ch in enumerate(value[:_MAX_SOFT_ITEMS]):
                    wish(z3.SubString(v, i, 1) == str_val(ch))
        elif isinstance(ty, TList):
            if isinstance(value, tuple):
                wish(z3.Length(v) == len(value))
                for i, item in enumerate(value[:_MAX_SOFT_ITEMS]):
                    if isinstance(ty.elem, (TInt, TDate, TReal, TStr, TBool, TEnum)):
                        with contextlib.suppress(Unsupported, AssertionError, KeyError):
                            wish(v[i] == literal(_as_value(item, ty.elem), ty.elem))
        elif isinstance(ty, (TBool, TEnum)):
            with contextlib.suppress(Unsupported, AssertionError, KeyError):
                wish(v == literal(_as_value(value, ty), ty))
        return out


_PORTFOLIO: Final = (("z3", 300_000), ("cvc5", 10_000), ("z3", RLIMIT), ("cvc5", 200_000))


def _has_seq(ty: Ty) -> bool:
    return isinstance(ty, (TStr, TList))


def _from_cvc5(term: Any, ty: Ty) -> object:
    """A cvc5 model value as a language value of ``ty`` (raises on anything unexpected)."""
    if isinstance(ty, TBool):
        return bool(term.getBooleanValue())
    if isinstance(ty, (TInt, TAny)):
        return int(term.getIntegerValue())
    if isinstance(ty, TDate):
        n = int(term.getIntegerValue())
        if not DATE_MIN <= n <= DATE_MAX:
            raise ValueError("day out of range")
        return date.fromordinal(n)
    if isinstance(ty, TReal):
        v = term.getRealValue()
        return Fraction(v)
    if isinstance(ty, TStr):
        return str(term.getStringValue())
    if isinstance(ty, TEnum):
        member = str(term).strip("|").rsplit(".", 1)[-1]
        if member not in ty.members:
            raise ValueError(f"no member {member}")
        return EnumValue(ty.name, member)
    if isinstance(ty, TList):
        return tuple(_from_cvc5(t, ty.elem) for t in term.getSequenceValue())
    raise ValueError(f"cannot read {ty.show()}")


def _spread(rng: random.Random, ty: Ty) -> object:
    """A seed value of ``ty`` drawn over several orders of magnitude."""
    if isinstance(ty, TInt):
        return rng.choice((-1, 1)) * int(10 ** rng.uniform(0, 6))
    if isinstance(ty, TReal):
        return rng.choice((-1.0, 1.0)) * 10 ** rng.uniform(-2, 6)
    if isinstance(ty, TStr):
        return "".join(rng.choice(_SEED_CHARS) for _ in range(rng.randint(0, 12)))
    if isinstance(ty, TDate):
        return date.fromordinal(rng.randint(DATE_MIN, DATE_MAX))
    if isinstance(ty, TBool):
        return rng.random() < 0.5
    if isinstance(ty, TEnum):
        return EnumValue(ty.name, rng.choice(ty.members))
    if isinstance(ty, TList):
        return tuple(_spread(rng, ty.elem) for _ in range(rng.randint(0, 6)))
    return None


_SEED_CHARS: Final = "abcxyzABC019_ -"


def _real(f: Fraction) -> Z:
    return z3.RealVal(f"{f.numerator}/{f.denominator}")


def _as_value(value: object, ty: Ty) -> Any:
    if isinstance(ty, TReal) and isinstance(value, float):
        return Fraction(value)
    return value


def _key(value: object) -> object:
    """A hashable key that tells ``1``, ``True`` and ``1.0`` apart."""
    if isinstance(value, tuple):
        return ("t", tuple(_key(v) for v in value))
    return (type(value).__name__, value)


# --------------------------------------------------------------------------- planning

_PLANS: dict[tuple[str, str], Plan] = {}
_SPACES: dict[tuple[str, str], Space] = {}


def clear_cache() -> None:
    _PLANS.clear()
    _SPACES.clear()


def space_for(info: TypeInfo, owner: str, admits: Admits) -> Space:
    """The (cached) input space of ``owner``; ``admits`` is the oracle's validity test."""
    key = (contract_identity(info.contract), owner)
    if key not in _SPACES:
        _SPACES[key] = Space(info, owner, admits)
    return _SPACES[key]


def plan_for(
    info: TypeInfo,
    owner: str,
    admits: Admits,
    example_inputs: Sequence[dict[str, object]] = (),
) -> Plan:
    """Triggers and solver-chosen inputs of ``owner``; computed once per contract.

    ``admits(input) -> bool`` is the oracle's validity test (the evaluator's reading
    of the requires and types): a model it refuses is not used.
    """
    key = (contract_identity(info.contract), owner)
    if key in _PLANS:
        return _PLANS[key]
    space = space_for(info, owner, admits)
    plan = Plan(owner, encodable=space.encodable, reason=space.reason)
    plan.triggers = find_triggers(info, owner, info.contract.obligations_of(owner))
    raises = [o for o in info.contract.obligations_of(owner) if o.kind == "raises"]
    solved: dict[str, tuple[str, dict[str, object] | None]] = {}
    seen_inputs: set[object] = set()

    def keep(values: dict[str, object] | None, origin: str = "") -> None:
        if values is None:
            return
        k = tuple(_key(values.get(n)) for n, _ in space.params)
        if k not in seen_inputs:
            seen_inputs.add(k)
            plan.inputs.append(values)
            plan.origins.append(origin)

    for t in plan.triggers:
        if not space.encodable:
            t.status, t.reason = "unknown", space.reason
            continue
        cache_key = f"{t.kind}:{t.description}:" + ";".join(to_source(c) for c in t.context)
        if cache_key in solved and t.kind != "raises":
            status, values = solved[cache_key]
        else:
            try:
                cond = space.encode(t.expr)
            except (Unsupported, z3.Z3Exception) as exc:
                t.status, t.reason = "unknown", str(exc)
                plan.unknowns.append(f"{t.obligation}: {t.description}: {exc}")
                continue
            status, values = "unknown", None
            if t.context:
                try:
                    ctx = [space.encode(c) for c in t.context]
                    status, values = space.solve(cond, *ctx)
                except (Unsupported, z3.Z3Exception):
                    status, values = "unknown", None
                if status != "sat":
                    status, values = "unknown", None
            if status != "sat" and t.kind == "raises":
                others = []
                for o in raises:
                    if o.id != t.obligation:
                        with contextlib.suppress(Unsupported, z3.Z3Exception):
                            others.append(z3.Not(space.encode(o.expr)))
                if others:
                    status, values = space.solve(cond, *others)
            if status != "sat":
                status, values = space.solve(cond)
            solved[cache_key] = (status, values)
        if status == "sat":
            t.status, t.input = "possible", values
            keep(values)
        elif status == "unsat":
            t.status = "vacuous"
        else:
            t.status = "unknown"
            plan.unknowns.append(f"{t.obligation}: {t.description}: the solver could not decide")
    for values in example_inputs:
        keep(dict(values), "an example's input")
    # The edges of declared ranges (`int in LO..HI`) are preconditions too.
    if space.encodable:
        for n, pty in space.params:
            if isinstance(pty, TInt):
                for edge in (pty.lo, pty.hi):
                    if edge is None:
                        continue
                    status, values = space.solve(space.vars[n].value == edge)
                    if status == "sat":
                        keep(values, f"the edge {n} == {edge} of its declared range")
    plan.pool = space.pool()
    for values, origin in _near_misses(info, owner, space, [*plan.inputs, *plan.pool]):
        keep(values, origin)
    _PLANS[key] = plan
    return plan
