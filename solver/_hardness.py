"""What makes an undecided realizability question hard: the clauses a report names.

"Resource limit reached" tells the author nothing to change.  Realizability is decided
completely for linear arithmetic, bounded lists and results built from the inputs;
what takes a question out of those fragments is written in some clause, and that
clause is what the author can simplify, bound or split:

- a quantifier (``forall``/``exists``, ``all``/``any``) that reads the result: for
  every input, some result must satisfy a condition on all its characters or elements;
- a conversion between text and integer (``int(...)``, ``str(...)``) of something that
  reads the result: Z3's and cvc5's string-to-integer reasoning is incomplete;
- an index into the result at a position that is not a constant;
- a product, division or modulo of two non-constant values (non-linear arithmetic), a
  power of a non-constant base or with a non-constant exponent;
- ``lower``/``upper``/``strip``/``split``/``join`` of something non-constant (recursive
  definitions over the string or list);
- the same features in a ``requires`` or ``raises`` condition, over the inputs;
- when none of these is written anywhere, a regular expression the result must match.

Only the first feature of each clause is named; ensures come first.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from derivative._ast import (
    BinOp,
    Call,
    Expr,
    Generator,
    Index,
    IntLit,
    ListComp,
    Obligation,
    Quantifier,
    Result,
)
from derivative._printer import to_source
from derivative._walk import free_names, walk

from ._context import Clauses
from ._wording import named

SHOWN = 60
"""A sub-expression quoted in a reason is cut to this many characters."""

Hard = tuple[Obligation, str]
"""A clause and why it makes realizability hard."""


def hard_clauses(cl: Clauses, consts: Collection[str] = ()) -> list[Hard]:
    """The clauses of ``cl`` that make realizability hard, with why (module docstring);
    ``consts``: the constants' names (a constant does not vary)."""
    out: list[Hard] = []
    fixed = frozenset(consts)
    for ob in [*cl.ensures, *cl.requires, *cl.raises]:
        why = _feature(ob.expr, ob.kind == "ensures", fixed)
        if why is not None:
            out.append((ob, why))
    if not out:
        # Nothing of the above: a regular expression the result must match is then
        # the likeliest obstacle (string solvers unfold it by length).
        out = [
            (ob, "matches the result against a regular expression")
            for ob in cl.ensures
            if any(
                isinstance(n, Call) and n.func == "matches" and n.args and _reads_result(n.args[0])
                for n in walk(ob.expr)
            )
        ]
    return out


def hard_text(hard: Sequence[Hard]) -> str:
    """The sentence appended to an undecided question's reason ("" when none)."""
    if not hard:
        return ""
    return "; what makes it hard: " + "; ".join(f"{named(ob)} {why}" for ob, why in hard)


def _shown(n: Expr, whole: Expr) -> str:
    """`` (sub-expression)`` for a reason, or "" when it is the whole clause (already
    quoted by ``named``)."""
    if n is whole:
        return ""
    text = to_source(n)
    return f" ({text if len(text) <= SHOWN else text[: SHOWN - 3] + '...'})"


def _feature(e: Expr, is_ensures: bool, fixed: frozenset[str]) -> str | None:
    """Why ``e`` is hard (the first feature found, pre-order), or None."""
    for n in walk(e):
        if is_ensures and not _reads_result(n):
            continue
        subject = "the result" if is_ensures else "the inputs"
        if isinstance(n, Quantifier | Generator):
            return f"has a quantifier that reads {subject}{_shown(n, e)}"
        if isinstance(n, ListComp):
            return f"has a list comprehension that reads {subject}{_shown(n, e)}"
        if (
            isinstance(n, Call)
            and n.func in ("int", "str")
            and n.args
            and (not is_ensures or _reads_result(n.args[0]))
        ):
            return f"converts between text and integer on {subject}{_shown(n, e)}"
        if (
            isinstance(n, Index)
            and is_ensures
            and _reads_result(n.base)
            and _varies(n.index, fixed)
        ):
            return f"indexes the result at a position that varies{_shown(n, e)}"
        if (
            isinstance(n, BinOp)
            and n.op in ("*", "/", "//", "%")
            and sum(1 for o in n.operands if _varies(o, fixed)) >= 2
        ):
            return f"multiplies or divides two unknowns (non-linear){_shown(n, e)}"
        if isinstance(n, BinOp) and n.op == "**" and _nonlinear_power(n, fixed):
            return f"raises an unknown to a power (non-linear){_shown(n, e)}"
        if (
            isinstance(n, Call)
            and n.func in _RECURSIVE_TEXT
            and any(_varies(a, fixed) for a in n.args)
        ):
            return f"maps text by a recursive definition ({n.func}){_shown(n, e)}"
    return None


_RECURSIVE_TEXT = frozenset({"lower", "upper", "strip", "split", "join"})
"""Text built-ins that Z3 reads through recursive definitions (``_encode_text``)."""


def _nonlinear_power(n: BinOp, fixed: frozenset[str]) -> bool:
    """``a ** k`` with a varying base and an exponent other than a literal 0 or 1, or a
    varying exponent (a recursive definition)."""
    a, k = n.operands
    if _varies(k, fixed):
        return True
    return _varies(a, fixed) and not (isinstance(k, IntLit) and k.value <= 1)


def _reads_result(e: Expr) -> bool:
    return any(isinstance(n, Result) for n in walk(e))


def _varies(e: Expr, fixed: frozenset[str]) -> bool:
    """Whether ``e`` reads a parameter, a bound variable or the result (not a constant)."""
    return bool(free_names(e) - fixed) or _reads_result(e)
