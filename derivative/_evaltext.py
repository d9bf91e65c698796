"""The evaluator's meaning of ``**`` and of the text built-ins (docs/language.md §7.3, §7.5).

``lower``, ``upper``, ``strip``, ``split``, ``join``, ``ord`` and ``chr`` mean what their
Python namesakes mean, narrowed where Python's meaning could not be encoded exactly for
a solver: case mapping and white space are **ASCII only** (``lower("É")`` is ``"É"``,
``strip`` removes only space, tab, newline, carriage return, form feed and vertical
tab), and ``chr`` covers the language's characters ``0..0x2FFFF``.  Every other input
outside a built-in's domain is undefined, like Python's ``ValueError``: ``split`` with an
empty separator, ``ord`` of a string that is not one character, a negative exponent.

Arguments arrive as runtime values that may have any sort (a candidate's result), so
each function checks them first and answers ``UNDEFINED`` on a mismatch.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from derivative._evalops import Outcome, is_int, is_num
from derivative._values import UNDEFINED

ASCII_SPACE: Final = " \t\n\r\x0b\x0c"
"""What ``strip`` removes: ASCII space, tab, newline, CR, vertical tab and form feed."""

MAX_CHAR: Final = 0x2FFFF
"""The largest character the language has (string literals and solvers stop there)."""

MAX_POWER_BITS: Final = 1 << 22
"""``a ** n`` whose exact value would need more bits than this is not computed: the
evaluator reports a resource limit (4 million bits is a 1.2-million-digit number)."""

_UPPER_TO_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_LOWER_TO_UPPER: Final = {c: c - 32 for c in range(ord("a"), ord("z") + 1)}


def power(a: object, n: object) -> Outcome:
    """``a ** n``: ``n`` an int >= 0 (``0 ** 0 == 1``); an int for an int ``a``, else a real.

    A negative exponent is undefined (Python would give a float, or fail for 0).  A float
    base (a candidate's real) stays a float; overflow is undefined as for any float.
    """
    if not (is_num(a) and is_int(n)) or n < 0:
        return UNDEFINED
    if isinstance(a, float):
        r = a**n
        return r if r - r == 0 else UNDEFINED  # inf or nan: undefined
    num, den = (a, 1) if isinstance(a, int) else (a.numerator, a.denominator)
    widest = max(abs(num), den)
    if widest > 1 and (widest.bit_length() - 1) * n > MAX_POWER_BITS:
        # Python would grind for minutes or run out of memory: a resource limit,
        # which the evaluator reports as such (never as "undefined").
        raise MemoryError(f"** would need more than {MAX_POWER_BITS} bits")
    if isinstance(a, int):
        return int(a**n)
    return Fraction(num**n, den**n)


def lower(s: object) -> Outcome:
    """``lower(s)``: ``A-Z`` to ``a-z``; every other character unchanged."""
    return s.translate(_UPPER_TO_LOWER) if isinstance(s, str) else UNDEFINED


def upper(s: object) -> Outcome:
    """``upper(s)``: ``a-z`` to ``A-Z``; every other character unchanged."""
    return s.translate(_LOWER_TO_UPPER) if isinstance(s, str) else UNDEFINED


def strip(s: object) -> Outcome:
    """``strip(s)``: ``s`` without leading and trailing ``ASCII_SPACE``."""
    return s.strip(ASCII_SPACE) if isinstance(s, str) else UNDEFINED


def split(s: object, sep: object) -> Outcome:
    """``split(s, sep)``: the pieces between occurrences of ``sep``, left to right.

    Always one piece more than there are occurrences (``split("", ",") == [""]``); an
    empty separator is undefined.
    """
    if not (isinstance(s, str) and isinstance(sep, str)) or not sep:
        return UNDEFINED
    return tuple(s.split(sep))


def join(sep: object, xs: object) -> Outcome:
    """``join(sep, xs)``: the strings of ``xs`` with ``sep`` between them (``""`` for ``[]``)."""
    if not isinstance(sep, str) or not isinstance(xs, tuple):
        return UNDEFINED
    if not all(isinstance(x, str) for x in xs):
        return UNDEFINED
    return sep.join(xs)


def code_of(c: object) -> Outcome:
    """``ord(c)``: the code point of a one-character string."""
    if isinstance(c, str) and len(c) == 1:
        return ord(c)
    return UNDEFINED


def char_of(n: object) -> Outcome:
    """``chr(n)``: the one-character string of code point ``n`` in ``0..0x2FFFF``."""
    if is_int(n) and 0 <= n <= MAX_CHAR:
        return chr(n)
    return UNDEFINED
