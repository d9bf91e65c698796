"""The runtime (``_runtime.py``) as the text a generated module carries.

``_runtime.py`` is a real, annotated module so that ruff and mypy read it; a written module
carries only the part below its ``RUNTIME STARTS`` line, with the annotations taken out
(they would need ``typing`` names a written module does not import).  Taking them out is
mechanical and positional: every ``def`` header is rewritten on one line from its
parameter names and the source text of their defaults, and ``name: T = value`` becomes
``name = value``.  Everything else (code, comments, blank lines) is copied as it stands.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from fractions import Fraction
from pathlib import Path
from typing import Any

__all__ = [
    "CONCURRENT_FILE",
    "RUNTIME_FILE",
    "carried_names",
    "concurrent_source",
    "explorer_source",
    "runtime",
    "runtime_source",
    "strip_annotations",
]

RUNTIME_FILE = Path(__file__).with_name("_runtime.py")
"""The runtime's source (read as text, never imported)."""
CONCURRENT_FILE = Path(__file__).with_name("_concurrent.py")
"""The concurrent hammer's source (read as text, never imported)."""
_MARKER = re.compile(r"^# -+ RUNTIME STARTS\n", re.MULTILINE)
_FUTURE = re.compile(r"^from __future__ import annotations\n", re.MULTILINE)


def _carried(path: Path) -> str:
    """The part of ``path`` below its ``RUNTIME STARTS`` line, without annotations and
    without blank lines at either end."""
    text = path.read_text(encoding="utf-8")
    found = _MARKER.search(text)
    if found is None:
        raise RuntimeError(f"{path} has no 'RUNTIME STARTS' line")
    return strip_annotations(text[found.end() :].strip("\n"))


@functools.cache
def runtime_source() -> str:
    """The runtime as a written module carries it: no header, no annotations, no blank
    lines at either end."""
    return _carried(RUNTIME_FILE)


@functools.cache
def concurrent_source() -> str:
    """The concurrent hammer as a written module carries it (like the runtime)."""
    return _carried(CONCURRENT_FILE)


@functools.cache
def explorer_source() -> str:
    """The interleaving explorer as a written module carries it: the file verbatim but
    for its ``from __future__`` import, which only the top of a module may hold (the
    written module's own opens it, so the annotations stay unevaluated text), and its
    stdlib-only marker comment.  Its annotations are kept: it imports its typing names."""
    from derivative.forge.inside import EXPLORER_SOURCE

    text = EXPLORER_SOURCE.read_text(encoding="utf-8")
    text, n = _FUTURE.subn("", text, count=1)
    if n != 1:
        raise RuntimeError(f"{EXPLORER_SOURCE} has no 'from __future__ import annotations'")
    return text.removeprefix("# derivative: stdlib-only\n").strip("\n")


@functools.cache
def carried_names() -> frozenset[str]:
    """The names a written module's carried code defines at its top level (functions,
    classes, assignments, imports): a spec name must not shadow one of them."""
    names: set[str] = set()
    for source in (runtime_source(), concurrent_source(), explorer_source()):
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.Import | ast.ImportFrom):
                names |= {(a.asname or a.name).partition(".")[0] for a in node.names}
    return frozenset(names)


def runtime() -> dict[str, Any]:
    """The runtime's namespace (for the differential test and the throughput benchmark):
    the carried text run with the names a written module's header gives it."""
    import builtins
    import datetime
    import decimal
    import enum
    import importlib
    import importlib.util
    import math
    import os
    import pathlib
    import sys

    from hypothesis import reject

    ns: dict[str, Any] = {
        "builtins": builtins, "datetime": datetime, "decimal": decimal, "enum": enum,
        "importlib": importlib, "math": math, "os": os, "pathlib": pathlib, "re": re, "sys": sys,
        "Fraction": Fraction, "reject": reject, "TARGET": "", "BINDS": {},
    }  # fmt: skip
    exec(compile(runtime_source(), "<derivative runtime>", "exec"), ns)
    return ns


# --------------------------------------------------------------------------- stripping


def strip_annotations(source: str) -> str:
    """``source`` without parameter, return and variable annotations (see the module
    docstring); comments and layout elsewhere are kept byte for byte."""
    tree = ast.parse(source)
    starts = _line_starts(source)
    colons = _colons(source, starts)
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            begin = starts[node.lineno - 1] + node.col_offset
            body = starts[node.body[0].lineno - 1] + node.body[0].col_offset
            end = max(c for c in colons if c < body) + 1
            edits.append((begin, end, _header(node, source)))
        elif isinstance(node, ast.AnnAssign):
            if node.value is None:
                raise ValueError(f"line {node.lineno}: an annotation without a value")
            assert node.target.end_lineno is not None and node.target.end_col_offset is not None
            begin = starts[node.target.end_lineno - 1] + node.target.end_col_offset
            end = starts[node.value.lineno - 1] + node.value.col_offset
            edits.append((begin, end, " = "))
    for begin, end, text in sorted(edits, reverse=True):
        source = source[:begin] + text + source[end:]
    return source


def _line_starts(source: str) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _colons(source: str, starts: list[int]) -> list[int]:
    """Offsets of every ``:`` operator token (never one inside a string or a comment)."""
    return [
        starts[tok.start[0] - 1] + tok.start[1]
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.OP and tok.string == ":"
    ]


def _header(node: ast.FunctionDef | ast.AsyncFunctionDef, source: str) -> str:
    """``def name(params):`` on one line, without annotations."""
    a = node.args

    def param(arg: ast.arg, default: ast.expr | None) -> str:
        if default is None:
            return arg.arg
        return f"{arg.arg}={ast.get_source_segment(source, default)}"

    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults))
    defaults += a.defaults
    parts = [param(arg, d) for arg, d in zip(positional, defaults, strict=True)]
    if a.posonlyargs:
        parts.insert(len(a.posonlyargs), "/")
    if a.vararg is not None:
        parts.append("*" + a.vararg.arg)
    elif a.kwonlyargs:
        parts.append("*")
    parts += [param(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
    if a.kwarg is not None:
        parts.append("**" + a.kwarg.arg)
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{prefix} {node.name}({', '.join(parts)}):"
