"""Small Z3 helpers shared by the encoder and the questions.

Kept apart from the encoder because the traps they guard against are easy to
reintroduce by accident (docs/architecture.md):

- z3py's ``StringVal`` *decodes* ``\\u{..}`` escapes, so a spec string holding a
  backslash followed by ``u{41}`` would silently become ``A``.  ``str_val`` escapes
  every character outside printable ASCII, and every backslash, so the text Z3 sees
  is exactly the spec's text; ``str_from_z3`` decodes a model's string back.
- Z3 strings hold characters up to U+2FFFF only: larger ones are refused here with
  ``Unsupported`` (an honest ``unknown``), never truncated.
- Reals from a model may be algebraic numbers (nonlinear arithmetic): they have no
  exact decimal, so converting them raises ``Unsupported`` instead of rounding.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

import z3

from derivative._errors import OperationalTimeout

Z = Any
"""A Z3 term (z3py is untyped)."""

MAX_CHAR = 0x2FFFF
"""Z3's largest string character."""

SEED = 0
"""The fixed seed of every solver: the same input gives the same answer."""


# The SAT and SMT cores' seeds are global parameters (a solver refuses them); fix them once.
z3.set_param("smt.random_seed", SEED)
z3.set_param("sat.random_seed", SEED)


class Z3Env:
    """A Z3 context and what we cache in it (enum sorts, recursive functions, regexes).

    Every ``check`` runs in a fresh context: Z3's search depends on the identities of
    the terms it holds, and a context shared with earlier checks in the same process
    made the same question answer differently after unrelated work.  A fresh context
    makes each check depend on its input only.

    The context's ``True``/``False`` terms, their AST pointers and the Boolean sort
    are made once here: the encoder asks "is this literally True?" and builds Boolean structure
    hundreds of thousands of times on large specs, and every z3py call it saves is
    several foreign calls.  Z3 hash-conses terms, so within one context ``True`` is one
    AST with one id (kept alive by the term held here).
    """

    def __init__(self, context: Z) -> None:
        self.ctx = context
        self.ref: Any = context.ref()
        self.cache: dict[Any, Any] = {}
        self.enum_names: set[str] = set()
        self.true: Z = z3.BoolVal(True, context)
        self.false: Z = z3.BoolVal(False, context)
        # Hash-consing makes "is literally True" a pointer comparison: while the term
        # above is alive, the context's True is that one AST node.
        self.true_ptr: int | None = self.true.ast.value
        self.false_ptr: int | None = self.false.ast.value
        self.bool_sort: Z = z3.BoolSort(context)

    def literal_value(self, p: Z) -> bool | None:
        """True/False when ``p`` is literally that constant, else None."""
        if p is self.true:
            return True
        if p is self.false:
            return False
        if not isinstance(p, z3.ExprRef) or p.ctx is not self.ctx:
            if z3.is_true(p):
                return True
            return False if z3.is_false(p) else None
        ptr = p.ast.value
        if ptr == self.true_ptr:
            return True
        return False if ptr == self.false_ptr else None

    def _own_bools(self, parts: Sequence[Z]) -> bool:
        c = self.ctx
        return all(type(p) is z3.BoolRef and p.ctx is c for p in parts)

    def mk_and(self, parts: Sequence[Z]) -> Z:
        """``And(*parts)`` (two or more Boolean terms), through the C API when they are
        plain Boolean terms of this context (z3py's coercions would be no-ops)."""
        if self._own_bools(parts):
            arr = (z3.Ast * len(parts))(*[p.ast for p in parts])
            return z3.BoolRef(z3.Z3_mk_and(self.ref, len(parts), arr), self.ctx)
        return z3.And(*parts)

    def mk_or(self, parts: Sequence[Z]) -> Z:
        if self._own_bools(parts):
            arr = (z3.Ast * len(parts))(*[p.ast for p in parts])
            return z3.BoolRef(z3.Z3_mk_or(self.ref, len(parts), arr), self.ctx)
        return z3.Or(*parts)

    def mk_implies(self, a: Z, b: Z) -> Z:
        if self._own_bools((a, b)):
            return z3.BoolRef(z3.Z3_mk_implies(self.ref, a.ast, b.ast), self.ctx)
        return z3.Implies(a, b)

    def mk_not(self, a: Z) -> Z:
        if type(a) is z3.BoolRef and a.ctx is self.ctx:
            return z3.BoolRef(z3.Z3_mk_not(self.ref, a.ast), self.ctx)
        return z3.Not(a)

    def conj(self, parts: Sequence[Z]) -> Z:
        """``And`` that drops literal ``True`` parts (keeps formulas readable)."""
        kept: list[Z] = []
        false_seen = False
        for p in parts:
            v = self.literal_value(p)
            if v is True:
                continue
            if v is False:
                false_seen = True
            kept.append(p)
        if not kept:
            return self.true
        if false_seen:
            return self.false
        return kept[0] if len(kept) == 1 else self.mk_and(kept)

    def disj(self, parts: Sequence[Z]) -> Z:
        kept: list[Z] = []
        true_seen = False
        for p in parts:
            v = self.literal_value(p)
            if v is False:
                continue
            if v is True:
                true_seen = True
            kept.append(p)
        if not kept:
            return self.false
        if true_seen:
            return self.true
        return kept[0] if len(kept) == 1 else self.mk_or(kept)

    def implies(self, a: Z, b: Z) -> Z:
        va = self.literal_value(a)
        if va is True:
            return b
        if va is False or self.literal_value(b) is True:
            return self.true
        return self.mk_implies(a, b)


_DEFAULT: Z3Env | None = None
_CURRENT: ContextVar[Z3Env | None] = ContextVar("derivative_z3_env", default=None)


def current() -> Z3Env:
    """The Z3 environment in force (Z3's main context outside ``fresh_context``)."""
    global _DEFAULT
    env = _CURRENT.get()
    if env is not None:
        return env
    if _DEFAULT is None:
        _DEFAULT = Z3Env(z3.main_ctx())
    return _DEFAULT


def ctx() -> Z:
    """The current Z3 context (pass it to every constructor that takes ``ctx``)."""
    return current().ctx


def fresh_name(prefix: str) -> str:
    """``prefix!N`` with N counted per Z3 environment, so term names (and with them
    Z3's search and the witnesses it finds) never depend on what ran earlier in the
    process."""
    counter = current().cache.setdefault(("name-counter",), itertools.count())
    return f"{prefix}!{next(counter)}"


@contextmanager
def fresh_context() -> Iterator[Z3Env]:
    """Run the body with its own Z3 context (see ``Z3Env``)."""
    env = Z3Env(z3.Context())
    token = _CURRENT.set(env)
    try:
        yield env
    finally:
        _CURRENT.reset(token)


@contextmanager
def using(env: Z3Env) -> Iterator[Z3Env]:
    """Run the body in ``env`` (an environment made earlier and kept, as a ``Space``
    keeps its own so that its answers never depend on what else ran in the process)."""
    token = _CURRENT.set(env)
    try:
        yield env
    finally:
        _CURRENT.reset(token)


def new_env() -> Z3Env:
    """A Z3 environment of its own, over a fresh context."""
    return Z3Env(z3.Context())


def true() -> Z:
    return current().true


def false() -> Z:
    return current().false


class Unsupported(Exception):
    """Something the encoding cannot express exactly: the question becomes ``unknown``.

    Never a user error and never a verdict: the reason is reported as the solver's
    reason for not deciding.
    """


def str_val(s: str) -> Z:
    """A Z3 string constant with exactly the characters of ``s``."""
    out: list[str] = []
    for ch in s:
        c = ord(ch)
        if c > MAX_CHAR:
            raise Unsupported(f"character U+{c:X} is beyond Z3's string alphabet (U+2FFFF)")
        if 0x20 <= c < 0x7F and ch != "\\":
            out.append(ch)
        else:
            out.append(f"\\u{{{c:x}}}")
    return z3.StringVal("".join(out), ctx())


_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]{1,5})\}|\\u([0-9a-fA-F]{4})")


def str_from_z3(v: Z) -> str:
    """The Python string of a Z3 string value (undoing Z3's ``\\u{..}`` escapes)."""
    text: str = v.as_string()
    return _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), text)


def fraction_val(f: Fraction) -> Z:
    text = f"{f.numerator}/{f.denominator}" if f.denominator != 1 else str(f.numerator)
    return z3.RealVal(text, ctx())


def fraction_from_z3(v: Z) -> Fraction:
    """An exact rational from a Z3 numeral; algebraic numbers are refused."""
    if z3.is_int_value(v):
        return Fraction(v.as_long())
    if z3.is_rational_value(v):
        return Fraction(v.numerator_as_long(), v.denominator_as_long())
    if z3.is_algebraic_value(v):
        raise Unsupported("the model has an irrational real value (nonlinear arithmetic)")
    raise Unsupported(f"not a numeral: {v}")


def safety_net(started: float, timeout_ms: int | None, reason: str = "") -> None:
    """Raise ``OperationalTimeout`` if a check that came back ``unknown`` had run into
    its wall-clock safety net (``timeout_ms``) rather than its resource limit.

    Z3's plain solver says ``canceled`` for both, so the clock decides: a check that
    gave up before its timeout cannot have been stopped by it.  (The default solver
    says ``timeout``.)  An answer cut short by the clock depends on the machine's
    speed, so it is never turned into an ``unknown`` of the report.
    """
    if not timeout_ms or timeout_ms <= 0:
        return
    elapsed = time.monotonic() - started
    if reason == "timeout" or elapsed * 1000 >= timeout_ms:
        raise OperationalTimeout(
            f"a Z3 call was stopped by its wall-clock safety limit of {timeout_ms / 1000:g} s "
            f"(after {elapsed:.3g} s), before its deterministic resource limit (the machine "
            "is overloaded or Z3 hangs); raise --timeout or run it again"
        )


class GuardedSolver(z3.Solver):  # type: ignore[misc]
    """A z3 solver whose ``check`` calls ``safety_net`` when it answers ``unknown``.

    ``timeout_ms`` is the wall-clock safety net it was made with (None: no clock)."""

    timeout_ms: int | None = None
    rlimit: int = 0
    """The resource limit it was made with (0: none)."""
    limit: Any = None
    """The question's ``_result.Limit`` behind ``rlimit``, set by the question that made
    it, so that an ``unknown`` can say which limit it reached and how to raise it."""

    def check(self, *assumptions: Z) -> Z:
        started = time.monotonic()
        r = super().check(*assumptions)
        if r == z3.unknown:
            safety_net(started, self.timeout_ms, str(self.reason_unknown()))
        return r


def make_solver(rlimit: int, timeout_ms: int | None, simple: bool = False) -> Z:
    """A solver with fixed seeds and a deterministic resource limit per check.

    ``rlimit`` is what decides (the same input gives the same answer on a busy
    machine); the wall-clock ``timeout`` is only a safety net, and a check that runs
    into it raises ``OperationalTimeout`` (``GuardedSolver``) instead of answering
    ``unknown``.  ``simple``: Z3's plain SMT solver, without the default solver's
    logic-specific tactics (much cheaper to create; what the default solver runs
    anyway once it is given assumptions).
    """
    env = current()
    key = ("solver-params", rlimit, timeout_ms)
    params = env.cache.get(key)
    if params is None:
        # Made once per context: the same settings z3py's ``set`` would give one at a
        # time, handed to each new solver in one call (enumerations make many).
        params = z3.ParamsRef(ctx=env.ctx)
        params.set("random_seed", SEED)
        if rlimit > 0:
            params.set("rlimit", rlimit)
        if timeout_ms is not None and timeout_ms > 0:
            params.set("timeout", timeout_ms)
        env.cache[key] = params
    made = z3.Z3_mk_simple_solver(env.ref) if simple else z3.Z3_mk_solver(env.ref)
    s = GuardedSolver(made, env.ctx)
    s.timeout_ms = timeout_ms
    s.rlimit = rlimit
    z3.Z3_solver_set_params(env.ref, s.solver, params.params)
    return s


def work_done(solver: Z) -> int:
    """Z3's resource units spent so far in ``solver``'s context (all its solvers
    together): a measure of work that does not depend on the machine's speed."""
    try:
        return int(solver.statistics().get_key_value("rlimit count"))
    except z3.Z3Exception:  # nothing counted yet
        return 0


def is_true(t: Z) -> bool:
    """Whether ``t`` simplifies to the literal ``True`` (cheap structural test)."""
    return bool(z3.is_true(z3.simplify(t)))


def conj(*parts: Z) -> Z:
    """``And`` that drops literal ``True`` parts (keeps formulas readable)."""
    return current().conj(parts)


def disj(*parts: Z) -> Z:
    """``Or`` that drops literal ``False`` parts."""
    return current().disj(parts)


def implies(a: Z, b: Z) -> Z:
    """``Implies`` that folds literal ``True``/``False`` operands."""
    return current().implies(a, b)
