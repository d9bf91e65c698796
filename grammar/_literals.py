"""Decoding of literal tokens: strings (Python's escapes), decimals, dates, tolerances.

Kept apart from the transformer so that the rules a requirement author meets
("\\d is not an escape, use a raw string") live in one small, testable place.
Errors carry the offset inside the token so the caret points at the culprit.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from decimal import Decimal, InvalidOperation

_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}

_ESCAPE = re.compile(
    r"\\(?:(?P<simple>[\\'\"abfnrtv])|(?P<oct>[0-7]{1,3})|x(?P<x>[0-9A-Fa-f]{2})"
    r"|u(?P<u>[0-9A-Fa-f]{4})|U(?P<U>[0-9A-Fa-f]{8})|N\{(?P<N>[^}]*)\}|(?P<bad>.?))",
    re.DOTALL,
)

MAX_CODE_POINT = 0x2FFFF


class LiteralError(Exception):
    """A malformed literal; ``offset`` is the 0-based position inside the token text."""

    def __init__(self, message: str, offset: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.hint = hint


def _check_chars(value: str, body_offset: int, raw: str) -> None:
    for i, ch in enumerate(value):
        cp = ord(ch)
        if cp > MAX_CODE_POINT or 0xD800 <= cp <= 0xDFFF:
            # Point at the character in the source if it is written literally.
            where = raw.find(ch)
            raise LiteralError(
                f"character U+{cp:04X} is not supported in strings",
                body_offset + (where if where >= 0 else i),
                "strings may use characters up to U+2FFFF (no surrogates)",
            )


def decode_string(token: str) -> str:
    """The value of a string token (``"..."``, ``'...'``, ``r"..."``), escapes decoded."""
    raw = token[0] in "rR"
    start = 2 if raw else 1
    body = token[start:-1]
    if raw:
        _check_chars(body, start, body)
        return body
    if "\\" not in body:
        _check_chars(body, start, body)
        return body
    out: list[str] = []
    pos = 0
    for m in _ESCAPE.finditer(body):
        out.append(body[pos : m.start()])
        pos = m.end()
        if m.group("simple") is not None:
            out.append(_SIMPLE_ESCAPES[m.group("simple")])
        elif m.group("oct") is not None:
            out.append(chr(int(m.group("oct"), 8)))
        elif m.group("x") is not None:
            out.append(chr(int(m.group("x"), 16)))
        elif m.group("u") is not None or m.group("U") is not None:
            cp = int(m.group("u") or m.group("U"), 16)
            if cp > 0x10FFFF:
                raise LiteralError(
                    f"\\U{m.group('U')} is not a Unicode code point", start + m.start()
                )
            out.append(chr(cp))
        elif m.group("N") is not None:
            try:
                out.append(unicodedata.lookup(m.group("N")))
            except KeyError:
                raise LiteralError(
                    f"unknown Unicode character name {m.group('N')!r}", start + m.start()
                ) from None
        else:
            bad = m.group("bad")
            shown = "\\" + bad
            raise LiteralError(
                f"invalid escape sequence '{shown}' in a string",
                start + m.start(),
                f"to keep the backslash (as a regular expression needs), write the raw "
                f"string r{token}; or double the backslash: \\\\{bad}",
            )
    out.append(body[pos:])
    value = "".join(out)
    _check_chars(value, start, body)
    return value


def normalise_decimal(text: str) -> str:
    """Exact decimal text with one canonical spelling: ``00.250`` → ``0.25``, ``2.0``."""
    whole, _, frac = text.replace("_", "").partition(".")
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0") or "0"
    return f"{whole}.{frac}"


_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def check_date(value: str) -> str | None:
    """``None`` if ``value`` is a valid ``YYYY-MM-DD`` day, else the reason it is not."""
    if not _DATE.fullmatch(value):
        return f"{value!r} is not a date written YYYY-MM-DD"
    try:
        datetime.date.fromisoformat(value)
    except ValueError as exc:
        return f"{value!r} is not a valid date ({exc})"
    return None


def normalise_tolerance(text: str) -> str | None:
    """Exact decimal text of a positive tolerance (``1e-6`` → ``0.000001``), else None."""
    try:
        d = Decimal(text.replace("_", ""))
    except InvalidOperation:
        return None
    if not d.is_finite() or d <= 0:
        return None
    s = format(d.normalize(), "f")
    if "." not in s:
        s += ".0"
    return s
