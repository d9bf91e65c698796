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

__all__ = ["collector_paused"]


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
