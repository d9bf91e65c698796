"""Progress on a terminal for long work (``rich``), silent everywhere else.

A build takes seconds to minutes, a run or a check can take as long: a person at a
terminal should see which step the work is in (the questions the solver decided, the
functions whose examples ran).  Nothing is drawn for work that ends within about a second
(``DELAY``): a status line that flickers and vanishes helps nobody.  Once the status is
shown, each step that ends leaves one line (``freeze: done in 0.1 s``), the steps that had
already ended included.  Under ``--json``, or when the stream is not a terminal (a pipe, a
CI log, a test's ``StringIO``), nothing is drawn at all, so machine-read output stays
exactly the document.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

Progress = Callable[[str, str], None]

DELAY = 1.0
"""Seconds of work before anything is drawn."""


def wanted(stream: TextIO, *, json_output: bool) -> bool:
    """Whether to draw progress on ``stream``."""
    isatty = getattr(stream, "isatty", None)
    return not json_output and callable(isatty) and bool(isatty())


class _Status:
    """A ``rich`` status line, started only once the work has lasted ``delay`` seconds."""

    def __init__(self, stream: TextIO, title: str, delay: float) -> None:
        from rich.console import Console

        self.console = Console(file=stream, highlight=False)
        self.title = title
        self.status = self.console.status(f"{title}: starting")
        self.lock = threading.Lock()
        self.visible = False
        self.closed = False
        self.gate: str | None = None
        self.since = time.monotonic()
        self.ended: list[str] = []
        """Lines of the steps that ended before the status was shown."""
        self.timer: threading.Timer | None = None
        if delay <= 0:
            self._show()
        else:
            self.timer = threading.Timer(delay, self._show)
            self.timer.daemon = True
            self.timer.start()

    def _show(self) -> None:
        with self.lock:
            if self.closed or self.visible:
                return
            self.visible = True
            for line in self.ended:
                self.console.print(line)
            self.status.start()

    def _end_gate(self, now: float) -> None:
        if self.gate is None:
            return
        line = f"[dim]{self.gate}: done in {now - self.since:.1f} s[/dim]"
        if self.visible:
            self.console.print(line)
        else:
            self.ended.append(line)

    def update(self, gate: str, detail: str) -> None:
        """A step starts (``gate`` differs from the last) or reports how far it is."""
        with self.lock:
            now = time.monotonic()
            if gate != self.gate:
                self._end_gate(now)
                self.gate, self.since = gate, now
            self.status.update(f"{self.title}: [bold]{gate}[/bold] {detail}")

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        with self.lock:
            self.closed = True
            if self.visible:
                self._end_gate(time.monotonic())
                self.status.stop()


@contextmanager
def gates(stream: TextIO, *, json_output: bool, title: str) -> Iterator[Progress | None]:
    """A ``progress(gate, detail)`` callback drawing a status line, or None when silent."""
    if not wanted(stream, json_output=json_output):
        yield None
        return
    shown = _Status(stream, title, DELAY)
    try:
        yield shown.update
    finally:
        shown.close()
