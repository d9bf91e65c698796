"""SMT-LIB text at the bottom: symbols, literals, Boolean connectives, the encoded pair.

Symbols are quoted away from what SMT-LIB or a solver reserves, literals are exact
(strings escape everything outside printable ASCII, reals are exact decimals or
fractions), and the connectives simplify ``true``/``false`` as they go, so that the
same core always prints the same bytes (the checker compares scripts textually).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable
from fractions import Fraction
from typing import Final

from derivative._errors import DerivativeError
from derivative._record import record
from derivative._types import Ty

MIN_DATE_ORDINAL: Final = _dt.date.min.toordinal()
MAX_DATE_ORDINAL: Final = _dt.date.max.toordinal()
MAX_CHAR: Final = 0x2FFFF


class EncodingError(DerivativeError):
    """The core uses a construct this printer cannot encode faithfully."""


# --------------------------------------------------------------------------- symbols

# Words that SMT-LIB reserves or that z3/cvc5 refuse to redeclare (measured: declaring
# each as an Int constant), plus theory function names without a dot.
_RESERVED: Final = frozenset(
    (
        "_",
        "!",
        "as",
        "let",
        "exists",
        "forall",
        "match",
        "par",
        "NUMERAL",
        "DECIMAL",
        "STRING",
        "BINARY",
        "HEXADECIMAL",
        "and",
        "or",
        "not",
        "xor",
        "ite",
        "distinct",
        "true",
        "false",
        "abs",
        "div",
        "mod",
        "rem",
        "to_real",
        "to_int",
        "is_int",
        "select",
        "store",
        "const",
        "concat",
        "extract",
        "repeat",
        "bag",
        "tuple",
        "fp",
        "sqrt",
        "exp",
        "sin",
        "cos",
        "tan",
        "arcsin",
        "arccos",
        "arctan",
        "arcsec",
        "arccsc",
        "arccot",
        "sbv_to_int",
        "ubv_to_int",
        "int_to_bv",
        "int2bv",
        "bv2int",
        "bv2nat",
        "nat2bv",
        "iand",
        "pow2",
        "RNA",
        "RNE",
        "RTN",
        "RTP",
        "RTZ",
        "roundNearestTiesToEven",
        "roundNearestTiesToAway",
        "roundTowardPositive",
        "roundTowardNegative",
        "roundTowardZero",
        "Int",
        "Real",
        "Bool",
        "String",
        "Seq",
        "Array",
        "RegLan",
        "result",
    )
)
_THEORY_PREFIXES: Final = frozenset(
    {"re", "str", "seq", "int", "real", "fp", "bv", "set", "bag", "rel", "table",
     "char", "tuple", "ff", "nullable", "array", "py"}
)  # fmt: skip
_SIMPLE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_LABEL_OK: Final = re.compile(r"[^|\\\x00-\x1f\x7f]+")


def _quote(text: str) -> str:
    if not _LABEL_OK.fullmatch(text):
        raise EncodingError(f"{text!r} cannot be written as an SMT-LIB symbol")
    return f"|{text}|"


def symbol(name: str) -> str:
    """The SMT symbol of a spec name (param, const, bound variable, enum).

    A name is used as it is unless SMT-LIB or a solver reserves it (``abs``, ``div``,
    ``and`` ...) or it starts like a theory's own symbols (``bv...``); such a name
    becomes ``|name'|``: a spec name never contains ``'``, so no two names meet.
    """
    if not _SIMPLE.fullmatch(name):
        raise EncodingError(f"{name!r} is not a spec name")
    if name in _RESERVED or name.startswith("bv"):
        return f"|{name}'|"
    return name


def constructor_symbol(enum: str, member: str) -> str:
    """``Enum.member`` as an SMT constructor (quoted away from theory prefixes like ``re.``)."""
    symbol(enum)
    symbol(member)
    if enum.lower() in _THEORY_PREFIXES:
        return f"|{enum}.{member}'|"
    return f"{enum}.{member}"


def label_symbol(ident: str, taken: Iterable[str] = ()) -> str:
    """The ``:named`` label of an obligation id: ``|id|``, or ``|id!label|`` if that is taken."""
    plain = _quote(ident)
    bare = ident
    if (
        bare in _RESERVED
        or bare in set(taken)
        or bare.split(".")[0].lower() in {"re", "str", "seq"}
    ):
        return _quote(ident + "!label")
    return plain


# --------------------------------------------------------------------------- literals


def string_literal(text: str) -> str:
    """An SMT-LIB 2.6 string literal: printable ASCII as is, ``"`` doubled, the rest ``\\u{..}``.

    Backslashes are escaped too (``\\u{5c}``) so that a spec string containing ``\\u{41}``
    stays six characters and is not read back as ``A``.
    """
    out = ['"']
    for ch in text:
        c = ord(ch)
        if c > MAX_CHAR:
            raise EncodingError(f"character U+{c:X} is beyond U+2FFFF, the SMT-LIB alphabet")
        if ch == '"':
            out.append('""')
        elif 0x20 <= c <= 0x7E and ch != "\\":
            out.append(ch)
        else:
            out.append(f"\\u{{{c:x}}}")
    out.append('"')
    return "".join(out)


def int_term(n: int) -> str:
    return str(n) if n >= 0 else f"(- {-n})"


def _decimal(n: int, d: int) -> str | None:
    """``n/d`` (d > 0, n >= 0) as an exact decimal numeral, if it has one."""
    k = d
    twos = fives = 0
    while k % 2 == 0:
        k //= 2
        twos += 1
    while k % 5 == 0:
        k //= 5
        fives += 1
    if k != 1:
        return None
    places = max(twos, fives, 1)
    scaled = n * 10**places // d
    digits = str(scaled).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}"


def real_term(q: Fraction) -> str:
    """An exact real: a decimal numeral where one exists, else ``(/ p.0 q.0)``."""
    a = abs(q)
    text = _decimal(a.numerator, a.denominator)
    if text is None:
        text = f"(/ {a.numerator}.0 {a.denominator}.0)"
    return text if q >= 0 else f"(- {text})"


def date_ordinal(text: str) -> int:
    return _dt.date.fromisoformat(text).toordinal()


# --------------------------------------------------------------------------- term helpers


def _junction(word: str, unit: str, zero: str, terms: tuple[str, ...]) -> str:
    """``(word t ...)`` without ``unit`` parts or repeats (a set, not a list: a run of
    thousands of operands would otherwise be quadratic); ``zero`` absorbs everything."""
    out: list[str] = []
    seen: set[str] = set()
    for t in terms:
        if t == zero:
            return zero
        if t != unit and t not in seen:
            seen.add(t)
            out.append(t)
    if not out:
        return unit
    return out[0] if len(out) == 1 else f"({word} {' '.join(out)})"


def and_(*terms: str) -> str:
    return _junction("and", "true", "false", terms)


def or_(*terms: str) -> str:
    return _junction("or", "false", "true", terms)


def not_(t: str) -> str:
    if t == "true":
        return "false"
    if t == "false":
        return "true"
    return f"(not {t})"


def implies(a: str, b: str) -> str:
    if a == "true":
        return b
    if a == "false" or b == "true":
        return "true"
    return f"(=> {a} {b})"


def ite(c: str, a: str, b: str) -> str:
    if a == b:
        return a
    if c == "true":
        return a
    if c == "false":
        return b
    return f"(ite {c} {a} {b})"


@record
class SmtTerm:
    """An encoded expression: ``defined`` and ``value`` SMT terms, and its type."""

    defined: str
    value: str
    ty: Ty

    @property
    def holds(self) -> str:
        """``defined and value``: what a core member asserts."""
        return and_(self.defined, self.value)
