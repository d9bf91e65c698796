"""Hypothesis writes nothing into the user's folder while the engine runs.

Hypothesis keeps two things on disk, under ``.hypothesis/`` of the directory the process
started in: its example database (the engine's settings turn it off: ``database=None``,
derandomised runs gain nothing from it) and a cache of the constants it reads from the
modules of the code under test (since Hypothesis 6.131), which no setting turns off.  A
``derivative run`` or ``derivative tests`` in a project folder must not leave a
``.hypothesis/`` folder behind, so for the length of a run Hypothesis's storage is a
temporary folder, removed afterwards.  The cache only saves time; the values it holds are
recomputed from the same source, so what is generated does not change.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["private_storage"]


def _home() -> Path | None:
    """Where Hypothesis stores things now (None: it cannot say, an unknown release)."""
    from hypothesis import configuration

    storage: Any = configuration.storage_directory  # its signature changed across releases
    try:
        found = storage(intent_to_write=False)
    except TypeError:  # a release before `intent_to_write`: it returns the folder itself
        found = storage()
    home = getattr(found, "home_directory", found)
    return home if isinstance(home, Path) else None


@contextmanager
def private_storage() -> Iterator[None]:
    """Point Hypothesis's storage at a fresh temporary folder, then back, and remove it."""
    from hypothesis import configuration

    before = _home()
    folder = tempfile.mkdtemp(prefix="derivative-hypothesis-")
    configuration.set_hypothesis_home_dir(folder)
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(before)
        shutil.rmtree(folder, ignore_errors=True)
