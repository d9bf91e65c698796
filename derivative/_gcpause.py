"""Pausing Python's cyclic garbage collector around bulk construction.

Loading a requirement set and checking it both allocate tens of thousands of small,
long-lived objects (syntax nodes; Z3 terms, members and their wrappers) and form no
reference cycles worth collecting.  The collector's generational heuristic answers such
an allocation burst by re-scanning the whole heap again and again: measured here, a
third or more of a 10,000-line load and about a fifth of a 10,000-requirement check,
for nothing.  Pausing it also keeps Z3's term ids, and with them its search,
independent of when a collection happens to run.  One helper, used by the grammar and
the solver, so the rule (restore the collector exactly as it was) lives in one place.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused", "pause_for_start", "start_over"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the body with the cyclic garbage collector paused; as it was afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_paused_for_start = False


def pause_for_start() -> None:
    """Pause the collector for a process's start (the console script calls this first).

    Importing the CLI and the layers a command uses allocates some hundred thousand
    objects that live as long as the process (modules, functions, classes, Z3's tables)
    and none that need collecting; the collector, seeing only an allocation burst, scans
    them again and again (about 10 ms of a 150 ms ``derivative check``). ``start_over``
    ends the pause."""
    global _paused_for_start
    if gc.isenabled() and not _paused_for_start:
        gc.disable()
        _paused_for_start = True


def start_over() -> None:
    """End ``pause_for_start``'s pause (a no-op when there was none, as in a library call).

    What the start built is moved out of the collector's generations (``gc.freeze``):
    it lives as long as the process, so later collections need not scan it again."""
    global _paused_for_start
    if _paused_for_start:
        _paused_for_start = False
        gc.freeze()
        gc.enable()
