"""Is a candidate Python source at all?  Told before any work is spent on it.

``derivative run`` and ``derivative tests`` are given code to judge.  A file that is not
Python source (a binary, text in another encoding, a syntax error) cannot be judged, and
saying so is bad input (exit 2) with the place, before the solver runs: not a posture
refusal seconds later (a binary is no policy violation) and not an import error's
traceback text.

The bytes are read as the interpreter reads them: a BOM or a coding cookie is honoured, so
a file the interpreter would run is never called unreadable here (whether a cookie other
than UTF-8 is *allowed* is the posture validator's question, not this one's).
"""

from __future__ import annotations

import ast
import io
import os
import tokenize
import warnings
from collections.abc import Iterator
from pathlib import Path

from derivative._errors import SourcePos, SpecError, UsageError

__all__ = ["CandidateSourceError", "check_python_file", "python_files"]


class CandidateSourceError(SpecError):
    """A candidate's file is not Python source (not text, not decodable, bad syntax), with
    the place when there is one; rendered like a spec error, with a caret."""


def _place(data: bytes, offset: int) -> tuple[int, int, str]:
    """Line, column (1-based) and the text of the line where byte ``offset`` is."""
    before = data[:offset].decode("utf-8", "replace")
    line = before.count("\n") + 1
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    shown = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace")
    return line, len(before) - (before.rfind("\n") + 1) + 1, shown


def _undecodable(data: bytes, shown: str, encoding: str, exc: UnicodeDecodeError) -> SpecError:
    line, column, text = _place(data, exc.start)
    if encoding.lower().replace("_", "-") in ("utf-8", "utf-8-sig"):
        encoding = "UTF-8"
    return CandidateSourceError(
        f"not Python source: byte 0x{data[exc.start]:02x} is not {encoding} text",
        SourcePos(shown, line, column, text),
        hint="save the file as UTF-8 (or declare its encoding in a coding line)",
    )


def check_python_file(path: str | os.PathLike[str], shown: str | None = None) -> None:
    """Raise ``CandidateSourceError`` (or ``UsageError`` when it cannot be read) unless the
    file is Python source the interpreter could compile."""
    shown = shown or os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or exc}") from None
    nul = data.find(b"\0")
    if nul >= 0:
        raise UsageError(f"{shown} is not Python source: it holds NUL bytes (byte "
                         f"{nul + 1}), so it is a binary file")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # undecodable first lines, or a cookie naming no codec
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _undecodable(data, shown, "UTF-8", exc) from None
        raise UsageError(f"{shown} is not Python source: its coding line names no encoding "
                         "Python knows") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise _undecodable(data, shown, encoding, exc) from None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes and the like are not our report
        try:
            ast.parse(text, filename=shown)
        except SyntaxError as exc:
            line = exc.lineno or 1
            source = (exc.text or "").rstrip("\n")
            raise CandidateSourceError(
                f"the candidate is not valid Python: {exc.msg}",
                SourcePos(shown, line, exc.offset or 1, source),
            ) from None
        except ValueError as exc:  # a source ast cannot take at all
            raise UsageError(f"{shown} is not Python source: {exc}") from None


def python_files(root: Path) -> Iterator[Path]:
    """The ``.py`` files of a candidate folder, as they are staged and validated: hidden
    folders and ``__pycache__`` are left out, symbolic links are not followed."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and d != "__pycache__"
                             and not (here / d).is_symlink())
        for name in sorted(filenames):
            full = here / name
            if name.endswith(".py") and full.is_file() and not full.is_symlink():
                yield full
