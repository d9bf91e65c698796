"""The driver of a batch: Dask schedules, workers build, this process alone records.

Why Dask distributed rather than a process pool written here: a batch of thousands of
builds is exactly what a cluster scheduler is for, and researchers already run Dask
clusters. ``LocalCluster`` (worker processes on this machine) is the embedded default;
``scheduler=tcp://HOST:PORT`` sends the same tasks to an existing cluster, unchanged. What
this module adds is what a verifier needs on top: every task is one build with its own
sandbox, results are recorded as they finish (the results table and the ledger are written
by this process only, so a dead worker can lose nothing already reported), and a task
whose worker dies is tried once more and then reported ``interrupted``, never as a verdict.

Why the retry is the driver's and not the scheduler's: Dask's own ``allowed-failures``
re-runs a task whose worker died, silently. Here the embedded cluster is started with it
at 0, so the driver sees each death, starts the second try itself and counts it in the
row (``tries``). An existing cluster keeps its own setting (Dask's default re-runs a task
up to three times before giving up): the driver's one extra try comes after those.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from derivative._errors import ExitCode, OperationalTimeout, UsageError

from ._manifest import Manifest, Task
from ._tables import ResultTables

MAX_TRIES: Final = 2
"""A task whose worker dies is tried once more, then reported ``interrupted``."""


@dataclass(frozen=True, kw_only=True)
class BatchOptions:
    """How a batch runs: on which cluster, into which folder, recording into which ledger."""

    workers: int | None = None
    """Worker processes of the embedded ``LocalCluster`` (default: the machine's CPUs)."""
    scheduler: str | None = None
    """The address of an existing Dask scheduler (``tcp://HOST:PORT``); no local cluster."""
    out: str | None = None
    """The batch folder (default ``derivative-batches/<manifest>-<time>``); must be new."""
    state: str | None = None
    """The state folder of the ledger the driver records into (as ``build --state``)."""
    threads_per_worker: int = 1
    connect_seconds: float = 30.0
    """How long to wait for an existing scheduler to answer."""


@dataclass
class BatchReport:
    """What a batch did: its folder, one row per task, counts by status."""

    folder: Path
    rows: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    workers: int = 0
    scheduler: str = ""

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows:
            out[r["status"]] = out.get(r["status"], 0) + 1
        return dict(sorted(out.items()))

    @property
    def exit_code(self) -> int:
        """0 when every task has a build status, 75 when a task was ``interrupted`` (no
        answer: run it again), 2 when a task's input was bad."""
        statuses = {r["status"] for r in self.rows}
        if "interrupted" in statuses or "error" in statuses:
            return int(ExitCode.OPERATIONAL_TIMEOUT)
        if "bad_input" in statuses:
            return int(ExitCode.BAD_INPUT)
        return int(ExitCode.OK)


Notify = Callable[[dict[str, Any], int, int], None]


def run_batch(manifest: Manifest, options: BatchOptions, *, notify: Notify | None = None,
              specs: dict[tuple[str, ...], dict[str, Any]] | None = None) -> BatchReport:
    """Build every task of ``manifest`` on a Dask cluster; ``notify(row, done, total)`` is
    called as each result is recorded."""
    if options.scheduler is not None and options.workers is not None:
        raise UsageError("--workers sizes the embedded cluster; an existing cluster "
                         "(--scheduler) has its own workers: drop one of them")
    if options.workers is not None and options.workers < 1:
        raise UsageError("--workers must be at least 1")
    path = _batch_folder(manifest, options)
    clock = time.perf_counter()
    with _client(options) as (client, workers, address):
        folder = _create(path)
        report = BatchReport(folder, workers=workers, scheduler=address)
        tables = ResultTables(folder, manifest=manifest, state=options.state, specs=specs)
        try:
            _drive(client, manifest, folder, tables, report, notify)
        finally:
            tables.close()
    report.seconds = time.perf_counter() - clock
    tables.write_summary(report.seconds, report.workers, report.scheduler, report.counts())
    return report


def _batch_folder(manifest: Manifest, options: BatchOptions) -> Path:
    if options.out:
        path = Path(options.out)
    else:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        path = Path("derivative-batches") / f"{manifest.path.stem}-{stamp}-{os.getpid()}"
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise UsageError(f"batch folder {path} already exists and is not empty: choose "
                         "another --out")
    return path


def _create(path: Path) -> Path:
    """The batch folder, made once a cluster is there to fill it."""
    try:
        (path / "builds").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create batch folder {path}: {exc.strerror}") from None
    return path.resolve()


@contextlib.contextmanager
def _client(options: BatchOptions) -> Iterator[tuple[Any, int, str]]:
    """A Dask client: to the named scheduler, or to a ``LocalCluster`` of worker processes."""
    import logging

    import dask
    import distributed

    dist: Any = distributed  # its annotations are partial: used as untyped
    Client, LocalCluster = dist.Client, dist.LocalCluster

    if options.scheduler is not None:
        try:
            client = Client(options.scheduler, timeout=options.connect_seconds)
        except (OSError, TimeoutError) as exc:
            raise OperationalTimeout(f"no Dask scheduler answered at {options.scheduler} "
                                     f"within {options.connect_seconds:g} s ({exc})") from None
        try:
            yield client, len(client.scheduler_info().get("workers", {})), options.scheduler
        finally:
            client.close()
        return
    workers = options.workers or os.cpu_count() or 1
    with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                          "distributed.worker.daemon": False,
                          "distributed.admin.tick.limit": "1h"}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=options.threads_per_worker,
                               processes=True, dashboard_address=None,
                               silence_logs=logging.CRITICAL)
        client = Client(cluster)
        try:
            yield client, workers, str(cluster.scheduler_address)
        finally:
            client.close()
            cluster.close()


def _submit(client: Any, task: Task, folder: Path, tries: int) -> Any:
    from ._task import execute

    return client.submit(execute, task, str(folder / "builds"), pure=False, retries=0,
                         key=f"derivative-build-{task.id}-try{tries}-{os.urandom(4).hex()}")


def _drive(client: Any, manifest: Manifest, folder: Path, tables: ResultTables,
           report: BatchReport, notify: Notify | None) -> None:
    import distributed

    as_completed: Any = distributed.as_completed
    tries: dict[Any, tuple[Task, int, float]] = {}
    pending = as_completed()
    for task in manifest.tasks:
        future = _submit(client, task, folder, 1)
        tries[future] = (task, 1, time.time())
        pending.add(future)
    total = len(manifest.tasks)
    for future in pending:
        task, n, submitted = tries.pop(future)
        row = _outcome(future, task, n, submitted)
        if row is None:  # the worker died: once more, then interrupted
            if n < MAX_TRIES:
                again = _submit(client, task, folder, n + 1)
                tries[again] = (task, n + 1, submitted)
                pending.add(again)
                continue
            row = _interrupted(task, n, submitted, folder)
        tables.record(row)
        report.rows.append(row)
        if notify is not None:
            notify(row, len(report.rows), total)


def _outcome(future: Any, task: Task, tries: int, submitted: float) -> dict[str, Any] | None:
    """The row of a finished try, or None when its worker died."""
    from distributed import KilledWorker

    try:
        result: dict[str, Any] = future.result()
    except KilledWorker:
        return None
    except Exception as exc:  # a bug in the tool, raised inside the worker
        result = {"status": "error", "reason": f"{type(exc).__name__}: {exc}",
                  "exit_code": int(ExitCode.INTERNAL), "record": None}
    received = time.time()
    result.update(id=task.id, index=task.index, source=task.source, tries=tries,
                  submitted=submitted, received=received,
                  wall_seconds=round(received - submitted, 6))
    return result


def _interrupted(task: Task, tries: int, submitted: float, folder: Path) -> dict[str, Any]:
    received = time.time()
    return {"id": task.id, "index": task.index, "source": task.source, "tries": tries,
            "status": "interrupted",
            "reason": f"the worker running this build died {tries} times; no verdict",
            "exit_code": int(ExitCode.OPERATIONAL_TIMEOUT), "record": None,
            "folder": str(folder / "builds" / task.id), "submitted": submitted,
            "received": received, "wall_seconds": round(received - submitted, 6)}
