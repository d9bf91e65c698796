"""The valid inputs of one owner as Z3 sees them, and a generator of valid inputs near a seed.

For a seed drawn by Hypothesis, ``Space.near`` asks Z3 for a model of the
preconditions that keeps as much of the seed as it can (numbers inside growing boxes
around the seed's values, strings and lists keeping the seed's length and characters),
dropping the conflicting wishes through unsat cores.  Hypothesis still drives the draw
and the shrinking (a smaller seed gives a smaller model), and no draw is rejected
while the preconditions are satisfiable.  When nothing near the seed is found, a pool
of distinct models (blocking clauses, computed once) is the fallback.  ``solve`` is a
small z3/cvc5 portfolio with deterministic resource limits.
"""

from __future__ import annotations

import contextlib
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date
from fractions import Fraction
from typing import Any, Final, Literal

import z3

from derivative._ast import Expr
from derivative._errors import OperationalTimeout
from derivative._typecheck import TypeInfo
from derivative._types import TBool, TDate, TEnum, TInt, TList, TReal, TStr, Ty, base
from derivative._values import EnumValue

from . import _cvc5_process
from ._decode import from_model
from ._definitions import regex_for
from ._encode import Encoder
from ._terms import DATE_MAX, DATE_MIN, Term, intrinsic_domain, literal, var
from ._z3util import Unsupported, Z, ctx, make_solver, new_env, str_val, using

Admits = Callable[[Mapping[str, object]], bool]

RLIMIT: Final = 4_000_000
"""Deterministic resource limit of one trigger query (Z3's rlimit, not wall-clock)."""
NEAR_RLIMIT: Final = 1_500_000
"""Resource limit of one query of the near-seed generator (it runs per draw)."""
TIMEOUT_MS: Final = 120_000
"""Wall-clock safety net only; the rlimit decides.  A query stopped by it raises
``OperationalTimeout`` (Z3: ``make_solver``'s guard; cvc5: ``_cvc5_solve``) instead of
counting as ``unknown``, since the inputs chosen would then depend on the machine's speed."""
POOL_SIZE: Final = 12
NEAR_CACHE: Final = 4096
_MAX_SOFT_ITEMS: Final = 24
_BOXES: Final = (0, 4, 64, 4096)

# Z3's Python API shares one context; queries from several threads must not interleave.
_Z3_LOCK = threading.RLock()


# --------------------------------------------------------------------------- values


def to_candidate_space(value: object, ty: Ty) -> object:
    """A model value as the tests pass it: reals become floats (docs/language.md §6)."""
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
        i = z3.FreshInt("k", ctx())
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
        # A context of its own: Z3's search depends on every term its context holds, and
        # in the shared main context the inputs chosen for a contract changed with the
        # builds that ran before it in the same process (a batch worker's builds).
        self.env = new_env()
        with self.z3():
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

    @contextlib.contextmanager
    def z3(self) -> Iterator[None]:
        """Z3 work on this space: one thread at a time, in the space's own context."""
        with _Z3_LOCK, using(self.env):
            yield

    # ------------------------------------------------------------------ queries

    def encode(self, expr: Expr) -> Z:
        """``expr`` as a Z3 condition (defined and true) over the parameters."""
        with self.z3():
            return self.encoder.encode(expr).holds

    def solve(self, *extra: Z, part: Part = "all") -> tuple[str, dict[str, object] | None]:
        """``("sat", input)``, ``("unsat", None)`` or ``("unknown", None)``.

        A small portfolio with deterministic resource limits: Z3 briefly, cvc5 briefly
        (much faster on string lengths), then each with a larger limit (not when
        ``quick``: a caller with a cheaper way to an input tries it before the long
        limits).  A model is only used if the evaluator agrees that it is a valid input;
        ``unsat`` from either solver makes a trigger vacuous.
        """
        if not self.encodable:
            return "unknown", None
        strings = self._has_strings()
        chosen = {"all": _PORTFOLIO, "quick": _PORTFOLIO[:_QUICK], "slow": _PORTFOLIO[_QUICK:]}
        for solver, limit in chosen[part]:
            if solver == "cvc5" and not strings:
                continue
            if solver == "z3":
                status, values = self._z3_solve(extra, limit)
            else:
                status, values = self._cvc5_solve(extra, limit)
                if status == "timeout":
                    raise OperationalTimeout(
                        f"cvc5 was stopped by its wall-clock safety limit of "
                        f"{TIMEOUT_MS / 1000:g} s before its resource limit"
                    )
            if status != "unknown":
                return status, values
        return "unknown", None

    def _has_strings(self) -> bool:
        return any(_has_seq(t) for _, t in self.params)

    def _z3_solve(self, extra: Sequence[Z], rlimit: int) -> tuple[str, dict[str, object] | None]:
        with self.z3():
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
        """cvc5 in its child process (``_cvc5_process``): a crash there is ``unknown``."""
        with self.z3():
            holder = z3.Solver(ctx=ctx())
            holder.add(*self.base, *extra)
            text = holder.to_smt2()
            names = {n: str(self.vars[n].value).strip("|") for n, _ in self.params}
        reply = _cvc5_process.ask(
            text, options=[("produce-models", "true"), ("strings-exp", "true"),
                           ("rlimit-per", str(rlimit)), ("tlimit-per", str(TIMEOUT_MS))],
            symbols=list(names.values()), timeout_ms=TIMEOUT_MS, logic="ALL")
        if reply.timeout:
            return "timeout", None
        if reply.verdict == "unsat":
            return "unsat", None
        if reply.verdict != "sat":
            return "unknown", None
        try:
            values = {n: to_candidate_space(_cvc5_process.value_of(reply.values[names[n]], t), t)
                      for n, t in self.params}
        except (KeyError, ValueError, TypeError, IndexError, OverflowError):
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
            k = tuple(input_key(values.get(n)) for n, _ in self.params)
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
        with self.z3():
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
                tuple(input_key(seed.get(n)) for n, _ in self.params),
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
        with self.z3():
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
            out.append((z3.FreshBool("w", ctx()), cond))

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
_QUICK: Final = 2
"""How many entries of ``_PORTFOLIO`` a ``quick`` solve tries (the brief ones)."""
Part = Literal["all", "quick", "slow"]


def _has_seq(ty: Ty) -> bool:
    return isinstance(ty, (TStr, TList))


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
    return z3.RealVal(f"{f.numerator}/{f.denominator}", ctx())


def _as_value(value: object, ty: Ty) -> Any:
    if isinstance(ty, TReal) and isinstance(value, float):
        return Fraction(value)
    return value


def input_key(value: object) -> object:
    """A hashable key that tells ``1``, ``True`` and ``1.0`` apart."""
    if isinstance(value, tuple):
        return ("t", tuple(input_key(v) for v in value))
    return (type(value).__name__, value)
