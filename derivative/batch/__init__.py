"""``derivative batch``: many builds on a Dask cluster, one results table, one ledger writer.

A manifest (JSON Lines, ``_manifest.py``) names builds: a spec and a candidate file, a
generator command or ``synth``. Every spec is loaded here first (bad input stops the batch
before anything runs); then each task is one ``derivative build`` on a Dask worker with its
own sandbox (``_task.py``), and this process records each result as it arrives
(``_tables.py``, ``_engine.py``). The CLI and ``benchmarks.blind`` import only the names
below.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ._engine import MAX_TRIES, BatchOptions, BatchReport, run_batch
from ._manifest import BATCH_FORMAT, Manifest, Task, group_specs, read_manifest
from ._tables import BATCH_RESULT_FORMAT, CSV_COLUMNS
from ._task import claim_folder

__all__ = [
    "BATCH_FORMAT",
    "BATCH_RESULT_FORMAT",
    "CSV_COLUMNS",
    "MAX_TRIES",
    "BatchOptions",
    "BatchReport",
    "Manifest",
    "Task",
    "batch",
    "claim_folder",
    "read_manifest",
]


def batch(manifest: str | os.PathLike[str] | Manifest, options: BatchOptions | None = None, *,
          notify: Callable[[dict[str, Any], int, int], None] | None = None) -> BatchReport:
    """Build every task of the manifest (a path or a ``Manifest``) and record the results.

    Raises ``SpecError`` for a manifest line or a spec that is wrong (located), and
    ``UsageError`` for an occupied ``out`` or contradictory options, before any build runs.
    """
    from derivative import api

    m = manifest if isinstance(manifest, Manifest) else read_manifest(manifest)
    specs: dict[tuple[str, ...], dict[str, Any]] = {}
    for paths in group_specs(m.tasks):
        loaded = api.load(list(paths))
        specs[paths] = {"name": loaded.name, "version": loaded.version,
                        "sha256": loaded.identity}
    return run_batch(m, options or BatchOptions(), notify=notify, specs=specs)
