"""Reading JSON strictly: one meaning per document, and nothing that can crash a reader.

Python's ``json.loads`` accepts more than a document a person can read unambiguously:

- an object may name a key twice, and the last value wins; a certificate with a forged
  ``"core"`` first and the real one last reads as the real one to the checker and as the
  forged one to a person (or to another JSON reader, which may keep the first);
- ``NaN``, ``Infinity`` and ``-Infinity``, which are not JSON;
- an integer of any length, whose conversion raises ``ValueError`` past Python's digit
  limit (4,300 digits), outside ``json``'s own error type;
- any nesting depth, where 100,000 open brackets raise ``RecursionError``, and where a
  document a little shallower than the recursion limit crashes the first recursive
  reader after the parser.

``loads`` refuses all of these with a ``JSONRefused`` (a ``UsageError``, exit 2) whose
message says what and where, and ``problems`` checks an already-parsed value (from an
API caller) for what a strict reading would have refused, without recursion.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any, Final

from ._errors import UsageError

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "JSONRefused", "loads", "problems"]

MAX_DEPTH: Final = 64
"""The deepest nesting of arrays and objects read (a certificate is about 6 deep; a
value of the language nests one level per ``list[...]`` of its type)."""

MAX_INT_DIGITS: Final = 4000
"""The longest integer read, in decimal digits: below Python's conversion limit (4,300),
so that every integer read can be written back and printed."""


class JSONRefused(UsageError):
    """The text is not JSON, or not JSON that reads one way only (see the module)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JSONRefused(
                f"the key {key[:80]!r} appears twice in one object (JSON readers disagree "
                "on which value counts)"
            )
        out[key] = value
    return out


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JSONRefused(f"an integer of {digits} digits (at most {MAX_INT_DIGITS} are read)")
    return int(text)


def _constant(text: str) -> Any:
    raise JSONRefused(f"{text} is not a JSON number")


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONRefused(f"the number {text[:40]} is too large for a JSON reader")
    return value


def loads(text: str) -> Any:
    """The JSON value of ``text``, read strictly; ``JSONRefused`` for anything else.

    A syntax error says ``not JSON (line L, column C: ...)``; every other refusal says
    what was refused.
    """
    try:
        value = json.loads(
            text,
            object_pairs_hook=_object,
            parse_int=_integer,
            parse_float=_number,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as err:
        raise JSONRefused(f"not JSON (line {err.lineno}, column {err.colno}: {err.msg})") from None
    except RecursionError:
        raise JSONRefused(f"nested deeper than the {MAX_DEPTH} levels read") from None
    found = problems(value)
    if found:
        raise JSONRefused(found[0])
    return value


def _children(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        return iter(value.values())
    if isinstance(value, list):
        return iter(value)
    return iter(())


def problems(value: Any) -> list[str]:
    """What a strict reading refuses in an already-parsed value: nesting deeper than
    ``MAX_DEPTH``, an integer longer than ``MAX_INT_DIGITS``, a non-finite number, a
    key that is not a string, a value of no JSON type.  Iterative, so any depth is safe;
    it stops at the first problem of each kind."""
    out: dict[str, str] = {}
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack and len(out) < 5:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth >= MAX_DEPTH:
                out.setdefault("depth", f"nested deeper than the {MAX_DEPTH} levels read")
                continue
            if isinstance(node, dict) and not all(isinstance(k, str) for k in node):
                out.setdefault("key", "an object key that is not a string")
            stack.extend((child, depth + 1) for child in _children(node))
        elif isinstance(node, bool) or node is None or isinstance(node, str):
            continue
        elif isinstance(node, int):
            if node.bit_length() > 3 * MAX_INT_DIGITS and _too_long(node):
                out.setdefault(
                    "int", f"an integer of more than {MAX_INT_DIGITS} digits (at most "
                    f"{MAX_INT_DIGITS} are read)"
                )
        elif isinstance(node, float):
            if not math.isfinite(node):
                out.setdefault("float", f"{node} is not a JSON number")
        else:
            out.setdefault("type", f"a value of type {type(node).__name__}, which JSON has not")
    return list(out.values())


def _too_long(n: int) -> bool:
    """Whether ``n`` has more than ``MAX_INT_DIGITS`` decimal digits (no conversion to text,
    which itself fails past Python's limit)."""
    limit: int = 10**MAX_INT_DIGITS
    return abs(n) >= limit

