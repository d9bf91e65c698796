"""The replay's sandbox, started while the judged run is still going.

A sandbox start is mostly waiting (a fresh interpreter, the isolation set-up, the import);
the judged run is mostly the host's own work (Hypothesis, the oracle), pinned to one CPU.
Started on another thread at the beginning, the replay's sandbox is ready when the run
ends, and the replay costs its calls and its close instead of a whole start (about 8% of a
1,000-example property on a two-CPU machine, ``benchmarks/sandbox_overhead.py``).  It is
staged elsewhere than the judged run (``avoid``), does not take the judging thread's CPU
(``colocate`` off, started on the session's spare CPUs: it makes a few dozen calls), and
its run clock starts when it is used,
so a long judged run cannot spend the replay's time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from ..sandbox import Sandbox


class EarlySandbox:
    """``open()`` on a thread of its own; ``take()`` waits for it (and restarts its clock)."""

    def __init__(self, opener: Callable[..., Sandbox], *, start: bool = True) -> None:
        self._opener = opener
        self._cpus: frozenset[int] = frozenset()
        """Where to start it (the judged session's spare CPUs): not on the judging thread's
        own CPU, where it would take turns with the run it is meant to overlap."""
        self._sandbox: Sandbox | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if start:
            self.begin()

    def begin(self, cpus: frozenset[int] = frozenset()) -> None:
        """Start opening it now, on ``cpus`` (all of this thread's when empty)."""
        if self._thread is None:
            self._cpus = cpus
            self._thread = threading.Thread(target=self._open, name="derivative-replay-start",
                                            daemon=True)
            self._thread.start()

    def _join(self) -> None:
        if self._thread is None:
            self.begin()
        assert self._thread is not None
        self._thread.join()

    def _open(self) -> None:
        try:
            if self._cpus:
                os.sched_setaffinity(0, self._cpus)  # this thread, and what it starts
            sandbox = self._opener()
            self._sandbox = sandbox
            sandbox.start()
        except BaseException as exc:  # reported by take(); a daemon thread must not die loud
            self._error = exc

    def take(self) -> Sandbox:
        """The started sandbox; the opener's error (``SandboxUnavailable``) if none."""
        self._join()
        if self._error is not None:
            self.discard()
            raise self._error
        sandbox, self._sandbox = self._sandbox, None
        assert sandbox is not None
        sandbox.restart_clock()
        return sandbox

    def discard(self) -> None:
        """Close the sandbox unless the replay took it (the run did not pass, or failed)."""
        if self._thread is None:
            return
        self._thread.join()
        sandbox, self._sandbox = self._sandbox, None
        if sandbox is not None:
            sandbox.close()
