"""How numbers are written: one rule for every JSON document, one for messages.

In JSON (``derivative.check/v1``, ``derivative.certificate/v1``, ``derivative.run/v1``,
the evidence of ``derivative tests``), ``number_json`` writes:

- an ``int`` (never a ``bool``) as a JSON integer: ``3``, ``-12``;
- a real as a JSON *string*, so that a real never reads as an int and no binary float
  enters a document:

  - an exact rational (``Fraction``) as the shortest exact decimal where one exists (its
    denominator has no prime factors but 2 and 5), with no exponent, no trailing zeros
    and no ``.0``: ``"3"``, ``"-1.25"``, ``"0.001"``; otherwise ``"p/q"`` in lowest
    terms, the sign on ``p``: ``"1/3"``, ``"-2/7"``;
  - a ``float`` (only a candidate's result or an input generated for a candidate, which
    receives floats) as the shortest decimal that reads back as the same float (the
    digits of Python's ``repr``), written the same way: ``3.0`` is ``"3"``, ``0.1`` is
    ``"0.1"``, ``1e-05`` is ``"0.00001"``; ``nan``, ``inf`` and ``-inf`` as those words.

  So a number that is both a float and a short decimal has one text whichever it is
  (``0.5`` and ``Fraction(1, 2)`` are both ``"0.5"``), and ``real_json`` of a value
  written as an int is its digits (a ``real`` const declared ``= 3`` is ``"3"``).

``parse_real`` reads any of these back (and a JSON integer where a real is expected).

Messages show values as the language writes them (``number_source``): a real keeps a
point (``3.0``), so that a message never shows a real as an int literal, and ``1/3``
(an expression that means that real).

Literal texts of the AST (``RealLit.value``, the ``tolerance`` line) are not numbers
in this sense: they are the source as written, normalised, and part of the contract's
identity, so they keep their own form (``"3.0"``).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Final

__all__ = [
    "REAL_PATTERN",
    "float_text",
    "number_json",
    "number_source",
    "parse_real",
    "real_json",
    "real_text",
]

REAL_PATTERN: Final = r"^-?[0-9]+(\.[0-9]+|/[0-9]+)?$"
"""What a real looks like in JSON (the published schemas use this pattern)."""

_REAL: Final = re.compile(REAL_PATTERN, re.ASCII)

_DIGIT_LIMIT_BITS: Final = 14_000
"""Below Python's ``int``/``str`` conversion limit (4300 digits); longer go through Decimal."""


def _digits(n: int) -> str:
    """The decimal digits of ``n`` (with a ``-``), at any length."""
    return str(n) if n.bit_length() < _DIGIT_LIMIT_BITS else str(Decimal(n))


def real_text(q: Fraction) -> str:
    """An exact rational: the shortest exact decimal (``"0.25"``, ``"-3"``) or ``"p/q"``."""
    sign = "-" if q < 0 else ""
    a = abs(q)
    d = k = a.denominator
    twos = fives = 0
    while k % 2 == 0:
        k //= 2
        twos += 1
    while k % 5 == 0:
        k //= 5
        fives += 1
    if k != 1:
        return f"{sign}{_digits(a.numerator)}/{_digits(d)}"
    places = max(twos, fives)
    if places == 0:
        return sign + _digits(a.numerator)
    digits = _digits(a.numerator * 10**places // d).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def float_text(f: float) -> str:
    """A float: the shortest decimal that reads back as ``f``, without exponent or ``.0``."""
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f == 0:
        return "0"
    text = format(Decimal(repr(f)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def real_json(value: int | Fraction | float) -> str:
    """A value of type ``real`` in JSON: always a string (see the module docstring)."""
    if isinstance(value, float):
        return float_text(value)
    return real_text(Fraction(value))


def number_json(value: int | Fraction | float) -> int | str:
    """A number in JSON: an ``int`` as a JSON integer, a real as ``real_json`` writes it."""
    if isinstance(value, bool):
        raise TypeError(f"{value!r} is a bool, not a number")
    if isinstance(value, int):
        return value
    return real_json(value)


def number_source(value: int | Fraction | float) -> str:
    """A number as the language writes it, for messages: ``3``, ``3.0``, ``0.25``, ``1/3``."""
    if isinstance(value, bool):
        raise TypeError(f"{value!r} is a bool, not a number")
    if isinstance(value, int):
        return _digits(value)
    text = real_json(value)
    if text.lstrip("-").isdigit():
        return text + ".0"
    return text


def parse_real(data: object) -> Fraction:
    """The exact value of a real written by ``real_json`` (a float's text reads as the
    decimal it shows), or of a JSON integer; ``ValueError`` for anything else."""
    if isinstance(data, int) and not isinstance(data, bool):
        return Fraction(data)
    if not isinstance(data, str) or not _REAL.fullmatch(data):
        raise ValueError(f"{data!r} is not an exact real (an integer, a decimal or 'p/q')")
    try:
        return Fraction(data)
    except ZeroDivisionError:
        raise ValueError(f"{data!r} has a zero denominator") from None
