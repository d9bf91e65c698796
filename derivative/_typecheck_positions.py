"""Where a type error points: source positions, and columns inside string literals.

A regex error is reported at the offending character of the string literal that
wrote the pattern (escapes and raw strings followed), an unknown exception at its
name after ``raises``; everything else at the node's own position.
"""

from __future__ import annotations

import linecache
import re

from derivative._errors import SourcePos


def source_pos(file: str, line: int, column: int) -> SourcePos | None:
    """A position with its source line for the caret; None for a node built by hand
    without file or line (``type_of`` on a synthetic tree)."""
    if not file and line <= 0:
        return None
    text = linecache.getline(file, line).rstrip("\r\n") if file and line > 0 else ""
    return SourcePos(file, line, column, text)


def literal_columns(source: str, start: int) -> list[int] | None:
    """Columns (0-based, in ``source``) of each decoded character of the string literal
    starting at ``source[start]``, or None if it cannot be followed exactly."""
    i = start
    raw = False
    if i < len(source) and source[i] in "rR":
        raw = True
        i += 1
    if i >= len(source) or source[i] not in "\"'":
        return None
    quote = source[i]
    i += 1
    cols: list[int] = []
    simple = {"\\", "'", '"', "a", "b", "f", "n", "r", "t", "v"}
    while i < len(source) and source[i] != quote:
        c = source[i]
        if c != "\\":
            cols.append(i)
            i += 1
            continue
        if raw:
            # A raw string keeps the backslash and the next character.
            cols.extend((i, i + 1))
            i += 2
            continue
        nxt = source[i + 1] if i + 1 < len(source) else ""
        if nxt in simple:
            cols.append(i)
            i += 2
        elif nxt in ("x", "u", "U"):
            cols.append(i)
            i += 2 + {"x": 2, "u": 4, "U": 8}[nxt]
        elif nxt == "N":
            end = source.find("}", i)
            if end < 0:
                return None
            cols.append(i)
            i = end + 1
        elif nxt in "01234567":
            j = i + 1
            while j < len(source) and j < i + 4 and source[j] in "01234567":
                j += 1
            cols.append(i)
            i = j
        else:
            return None
    if i >= len(source):
        return None
    cols.append(i)  # the closing quote: where an error "at the end" points
    return cols


def regex_column(file: str, line: int, lit_col: int, offset: int, value: str) -> int:
    """The column of ``offset`` inside the string literal that starts at ``lit_col``."""
    text = linecache.getline(file, line) if file and line > 0 else ""
    cols = literal_columns(text, lit_col - 1) if text else None
    if cols is None or len(cols) != len(value) + 1 or offset > len(value):
        return lit_col
    return cols[offset] + 1


def exception_column(file: str, line: int, column: int, name: str) -> int:
    """The column of ``name`` after ``raises`` on the clause's line (else ``column``)."""
    text = linecache.getline(file, line) if file and line > 0 else ""
    m = re.compile(r"\braises\s+(" + re.escape(name) + r")\b").search(text, max(column - 1, 0))
    return m.start(1) + 1 if m else column


def matching_literal_column(file: str, line: int, type_col: int) -> int | None:
    """Where the literal of ``str matching "RE"`` starts, given the ``str`` column."""
    text = linecache.getline(file, line) if file and line > 0 else ""
    i = type_col - 1
    if not text.startswith("str", i):
        return None
    i += 3
    while i < len(text) and text[i] in " \t":
        i += 1
    if not text.startswith("matching", i):
        return None
    i += len("matching")
    while i < len(text) and text[i] in " \t":
        i += 1
    return i + 1 if i < len(text) else None

