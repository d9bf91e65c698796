"""One batch task, as a Dask worker runs it: one build, its own sandbox, a private ledger.

Why a private ledger: the batch's ledger is written by one process only, the driver. A
build needs a ledger for its own protocol (the journal of builds begun, the commit point of
publishing), so each task builds against a throw-away state folder of its own and hands
its one record back with the result; the driver appends it to the real ledger as the
result arrives. A worker that dies mid-build therefore leaves nothing in the real ledger
but what the driver later writes for it.

Why the task claims its folder itself: Dask may run a task again after its worker died,
and the dead try's folder is half written. Each try takes the first free name of
``builds/<id>``, ``builds/<id>.try2``, ... with ``mkdir`` (atomic), so a try never writes
into another's folder and the dead try's files stay for inspection.

This function never raises for anything a build can say: bad input for one task (a module
that is not in the candidate, a contract ``synth`` cannot handle) is that task's row with
status ``bad_input``; only a bug in the tool escapes, as Dask's error for the task.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from derivative._errors import DerivativeError

from ._manifest import Task

_LOADED: dict[tuple[tuple[str, ...], tuple[tuple[int, int], ...]], Any] = {}
"""Specs loaded in this worker process, by their paths and (size, mtime): the tasks of a
batch usually share a few specs, and loading is most of a small build's fixed cost."""


def _load(spec: tuple[str, ...]) -> Any:
    from derivative import api

    stamp = tuple((st.st_size, st.st_mtime_ns) for st in (os.stat(p) for p in spec))
    key = (spec, stamp)
    if key not in _LOADED:
        if len(_LOADED) > 64:
            _LOADED.clear()
        _LOADED[key] = api.load(list(spec))
    return _LOADED[key]


def claim_folder(builds: Path, task_id: str) -> Path:
    """The first free ``builds/<id>``, ``builds/<id>.try2``, ... created for this try."""
    builds.mkdir(parents=True, exist_ok=True)
    n = 1
    while True:
        path = builds / (task_id if n == 1 else f"{task_id}.try{n}")
        try:
            path.mkdir()
        except FileExistsError:
            n += 1
            continue
        return path


def execute(task: Task, builds: str) -> dict[str, Any]:
    """Build ``task`` into a folder under ``builds``; the result row and the ledger record."""
    # Dask's own threads draw from the global ``random`` while a build generates inputs,
    # which Hypothesis takes for a strategy using it: a false alarm in a worker process
    # (the engine draws only from its own seeded sources).
    warnings.filterwarnings("ignore", message="Do not use the `random` module inside")
    started = time.time()
    clock = time.perf_counter()
    folder = claim_folder(Path(builds), task.id)
    state = tempfile.mkdtemp(prefix="derivative-batch-state-")
    row: dict[str, Any] = {"folder": str(folder), "worker_pid": os.getpid(),
                           "started": started}
    try:
        loaded = _load(task.spec)
        row["spec"] = {"name": loaded.name, "version": loaded.version,
                       "sha256": loaded.identity}
        report = _build(task, loaded, folder, state)
    except DerivativeError as exc:
        row.update(status="bad_input", reason=exc.render().removeprefix("error: "),
                   exit_code=int(exc.exit_code), record=None)
        with contextlib.suppress(OSError):  # refused before writing: leave no empty folder
            folder.rmdir()
            row["folder"] = None
    else:
        row.update(_report_row(report, state))
    finally:
        _remove_tree(Path(state))
    row["seconds"] = round(time.perf_counter() - clock, 6)
    return row


def _build(task: Task, loaded: Any, folder: Path, state: str) -> Any:
    from derivative import api

    kwargs: dict[str, Any] = {k: getattr(task, k) for k in ("module", "sandbox", "policy",
                                                             "seed", "image")}
    if task.examples is not None:
        kwargs["examples"] = task.examples
    if task.max_repairs is not None and task.generator is not None:
        kwargs["max_repairs"] = task.max_repairs
    options = api.BuildOptions(candidate=task.candidate, generator=task.generator,
                               synth=task.synth, out=str(folder), state=state, **kwargs)
    return api.build(loaded, options)


def _report_row(report: Any, state: str) -> dict[str, Any]:
    from derivative.forge.build import Ledger

    outcome = report.outcome
    record = Ledger(Path(state)).get(outcome["build_id"])
    return {
        "status": report.status, "reason": report.reason, "exit_code": report.exit_code,
        "build_id": outcome["build_id"], "candidate_sha256": outcome.get("candidate_sha256"),
        "package": str(report.package) if report.package is not None else None,
        "attempts": outcome.get("attempts", 0),
        "record": dataclasses.asdict(record) if record is not None else None,
    }


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)

