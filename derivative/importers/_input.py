"""Reading an export's text: JSON and CSV, with the place of what is wrong.

A file that is not what its importer reads is bad input (exit 2): ``BadExport`` names the
file and, where the reader knows it, the line and column, with the line and a caret, as the
spec parser does.  Nothing of the file is executed or evaluated; JSON is read strictly
(``derivative._strictjson``: no duplicate keys, no ``NaN``, a depth limit).
"""

from __future__ import annotations

import csv
import io
import json
import os
from typing import Any

from derivative._errors import SourcePos, SpecError
from derivative._files import MAX_SPEC_BYTES, read_regular_file
from derivative._strictjson import JSONRefused
from derivative._strictjson import loads as strict_loads

__all__ = ["BadExport", "decode", "read_csv", "read_export", "read_json"]


class BadExport(SpecError):
    """An export file its importer cannot read: not JSON or CSV, or not of the expected
    shape.  Exit 2, with the place when there is one."""


def _pos(source: str, text: str, line: int, column: int) -> SourcePos:
    lines = text.splitlines()
    shown = lines[line - 1] if 0 < line <= len(lines) else ""
    return SourcePos(source, line, column, shown[:400])


def decode(data: bytes, source: str) -> str:
    """The UTF-8 text of an export (a byte-order mark dropped)."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        raise BadExport(f"{source}: not UTF-8 text (byte {err.start + 1})") from None


def read_export(path: str | os.PathLike[str]) -> str:
    """The text of an export file, read as a spec file is (a regular file of at most
    16 MiB)."""
    data = read_regular_file(path, limit=MAX_SPEC_BYTES, what="requirements export")
    return decode(data, os.fspath(path))


def read_json(text: str, source: str) -> Any:
    """The JSON value of an export; ``BadExport`` at the place of a syntax error."""
    try:
        return strict_loads(text)
    except JSONRefused as err:
        try:
            json.loads(text)
        except json.JSONDecodeError as syntax:
            raise BadExport(f"not JSON: {syntax.msg}",
                            _pos(source, text, syntax.lineno, syntax.colno)) from None
        except (ValueError, RecursionError):
            pass
        raise BadExport(f"{source}: {err}") from None


def read_csv(text: str, source: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the rows of a CSV export, each row with the line it starts on;
    ``BadExport`` for broken quoting or a row whose number of fields is not the header's."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, list[str]]] = []
    try:
        start = 1
        for row in reader:
            rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as err:
        line = reader.line_num
        raise BadExport(f"not CSV: {err}", _pos(source, text, line, 1)) from None
    rows = [(n, r) for n, r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise BadExport(f"{source}: empty, so no header line")
    (_, header), body = rows[0], rows[1:]
    for line, row in body:
        if len(row) != len(header):
            raise BadExport(
                f"this row has {len(row)} fields, the header has {len(header)}",
                _pos(source, text, line, 1),
                hint="quote a field that holds a comma or a line end with double quotes",
            )
    return [h.strip() for h in header], body
