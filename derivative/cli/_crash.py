"""Crash reports: a short message for the user, the whole traceback in a file."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from derivative import __version__

CRASH_DIR_ENV = "DERIVATIVE_CRASH_DIR"
"""Environment variable naming the folder for crash reports (default ``./.derivative``)."""


def crash_report_path() -> Path:
    """Where to write a crash report: ``$DERIVATIVE_CRASH_DIR``, ``./.derivative``, or tmp."""
    import datetime as _dt  # here, not at import: ``--version`` must start fast
    import tempfile

    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    name = f"crash-{stamp}-{os.getpid()}.txt"
    candidates = [os.environ.get(CRASH_DIR_ENV), ".derivative", tempfile.gettempdir()]
    for folder in candidates:
        if not folder:
            continue
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
            path = Path(folder) / name
            path.touch(exist_ok=False)
            return path.resolve()
        except OSError:
            continue
    raise OSError("no writable folder for a crash report")


def report_crash(exc: BaseException, argv: Sequence[str], stderr: TextIO) -> None:
    """Two lines naming the exception and the file holding the traceback, the command
    line and the versions (if no folder is writable, the traceback goes to ``stderr``)."""
    import traceback

    detail = "".join(traceback.format_exception(exc))
    summary = f"internal error: {type(exc).__name__}: {exc}"
    try:
        path = crash_report_path()
        path.write_text(
            f"derivative {__version__}\nargv: {list(argv)!r}\npython: {sys.version}\n\n{detail}",
            encoding="utf-8",
        )
    except OSError:
        stderr.write(f"{summary}\n{detail}")
        return
    stderr.write(f"{summary}\nThis is a bug in derivative. The full traceback is in {path}\n")


def silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
