"""Progress on a terminal for long work (``rich``), silent everywhere else.

A build takes seconds to minutes: a person at a terminal should see which gate it is in.
Under ``--json``, or when the output is not a terminal (a pipe, a CI log, a test's
``StringIO``), nothing is drawn, so machine-read output stays exactly the document.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

Progress = Callable[[str, str], None]


def wanted(stream: TextIO, *, json_output: bool) -> bool:
    """Whether to draw progress on ``stream``."""
    isatty = getattr(stream, "isatty", None)
    return not json_output and callable(isatty) and bool(isatty())


@contextmanager
def gates(stream: TextIO, *, json_output: bool, title: str) -> Iterator[Progress | None]:
    """A ``progress(gate, detail)`` callback drawing a status line, or None when silent."""
    if not wanted(stream, json_output=json_output):
        yield None
        return
    from rich.console import Console

    console = Console(file=stream, highlight=False)
    started = time.monotonic()
    with console.status(f"{title}: starting") as status:
        last: dict[str, Any] = {"gate": None, "at": started}

        def update(gate: str, detail: str) -> None:
            now = time.monotonic()
            if last["gate"] is not None:
                console.print(f"[dim]{last['gate']}: done in {now - last['at']:.1f} s[/dim]")
            last.update(gate=gate, at=now)
            status.update(f"{title}: [bold]{gate}[/bold] {detail}")

        yield update
        if last["gate"] is not None:
            console.print(f"[dim]{last['gate']}: done in {time.monotonic() - last['at']:.1f} s"
                          "[/dim]")
