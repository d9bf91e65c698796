"""JSON for people and programs: indented near the top, one line per deep value.

``json.dumps(..., indent=2)`` runs Python's pure-Python encoder (the C encoder only
writes compact JSON), one call per value: for the ``contract/v1`` document of ten
thousand requirements, whose syntax trees are deep, that was a third of
``derivative parse --json``.  Here the first ``depth`` levels are indented as
``indent=2`` would, and any value below them is written on one line by the C encoder
(with the same ``", "`` and ``": "`` separators a reader is used to).  The data is
the same; only the layout of deep values changes.
"""

from __future__ import annotations

import json
from typing import Any

_INLINE = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
_SCALAR = json.JSONEncoder(ensure_ascii=False)


def dumps(obj: Any, depth: int = 3) -> str:
    """``obj`` as JSON, indented by two spaces for its first ``depth`` levels."""
    out: list[str] = []
    _write(obj, depth, 0, out)
    return "".join(out)


def _write(obj: Any, depth: int, level: int, out: list[str]) -> None:
    if level >= depth or not isinstance(obj, dict | list) or not obj:
        out.append(_INLINE.encode(obj))
        return
    pad = "\n" + "  " * (level + 1)
    if isinstance(obj, dict):
        out.append("{")
        first = True
        for key, value in obj.items():
            out.append(pad if first else "," + pad)
            first = False
            out.append(_SCALAR.encode(str(key)))
            out.append(": ")
            _write(value, depth, level + 1, out)
        out.append("\n" + "  " * level + "}")
        return
    out.append("[")
    for i, value in enumerate(obj):
        out.append(pad if i == 0 else "," + pad)
        _write(value, depth, level + 1, out)
    out.append("\n" + "  " * level + "]")
