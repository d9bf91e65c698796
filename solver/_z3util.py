"""Small Z3 helpers shared by the encoder and the questions.

Kept apart from the encoder because the traps they guard against are easy to
reintroduce by accident (ARCHITECTURE.md §2):

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
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

import z3

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
    """

    def __init__(self, context: Z) -> None:
        self.ctx = context
        self.cache: dict[Any, Any] = {}
        self.enum_names: set[str] = set()


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


def _constants() -> tuple[Z, Z, int, int, Z]:
    """The context's ``True`` and ``False`` terms and their AST ids (made once).

    The encoder asks "is this literally True/False?" hundreds of thousands of times on
    large specs; ``z3.is_true`` costs several foreign calls and object allocations
    each time.  Z3 hash-conses terms, so within one context ``True`` is one AST with
    one id (kept alive by the cached term): comparing ids is the same test, cheaper.
    """
    env = current()
    found = env.cache.get("bool-constants")
    if found is None:
        t = z3.BoolVal(True, env.ctx)
        f = z3.BoolVal(False, env.ctx)
        found = (t, f, t.get_id(), f.get_id(), env.ctx)
        env.cache["bool-constants"] = found
    result: tuple[Z, Z, int, int, Z] = found
    return result


def true() -> Z:
    return _constants()[0]


def false() -> Z:
    return _constants()[1]


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


def make_solver(rlimit: int, timeout_ms: int | None) -> Z:
    """A solver with fixed seeds and a deterministic resource limit per check.

    ``rlimit`` is what decides (the same input gives the same answer on a busy
    machine); the wall-clock ``timeout`` is only a safety net.
    """
    s = z3.Solver(ctx=ctx())
    s.set("random_seed", SEED)
    if rlimit > 0:
        s.set("rlimit", rlimit)
    if timeout_ms is not None and timeout_ms > 0:
        s.set("timeout", timeout_ms)
    return s


def is_true(t: Z) -> bool:
    """Whether ``t`` simplifies to the literal ``True`` (cheap structural test)."""
    return bool(z3.is_true(z3.simplify(t)))


def _literal_value(p: Z, consts: tuple[Z, Z, int, int, Z]) -> bool | None:
    """True/False when ``p`` is literally that constant, else None (one look-up of the
    context's constants per caller, not per part: this is the encoder's hottest path)."""
    t, f, tid, fid, context = consts
    if p is t:
        return True
    if p is f:
        return False
    if not isinstance(p, z3.ExprRef) or p.ctx is not context:
        if z3.is_true(p):
            return True
        return False if z3.is_false(p) else None
    pid = p.get_id()
    if pid == tid:
        return True
    return False if pid == fid else None


def conj(*parts: Z) -> Z:
    """``And`` that drops literal ``True`` parts (keeps formulas readable)."""
    consts = _constants()
    kept: list[Z] = []
    false_seen = False
    for p in parts:
        v = _literal_value(p, consts)
        if v is True:
            continue
        if v is False:
            false_seen = True
        kept.append(p)
    if not kept:
        return consts[0]
    if false_seen:
        return consts[1]
    return kept[0] if len(kept) == 1 else z3.And(*kept)


def disj(*parts: Z) -> Z:
    consts = _constants()
    kept: list[Z] = []
    true_seen = False
    for p in parts:
        v = _literal_value(p, consts)
        if v is False:
            continue
        if v is True:
            true_seen = True
        kept.append(p)
    if not kept:
        return consts[1]
    if true_seen:
        return consts[0]
    return kept[0] if len(kept) == 1 else z3.Or(*kept)


def implies(a: Z, b: Z) -> Z:
    consts = _constants()
    va = _literal_value(a, consts)
    if va is True:
        return b
    if va is False or _literal_value(b, consts) is True:
        return consts[0]
    return z3.Implies(a, b)
