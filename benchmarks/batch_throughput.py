"""Batch throughput on Dask: builds per minute with 1, 2 and 4 local workers.

Run as ``python benchmarks/batch_throughput.py [--builds 200] [--workers 1,2,4]
[--examples 20] [--json PATH]``.  Not run in CI.

The work: ``--builds`` small builds (a one-function contract, a correct candidate, the
process sandbox, ``--examples`` inputs per obligation; each build is a full ``derivative
build``: freeze, feasibility, posture, sandbox, obligations, package, ledger record), as
one ``derivative batch`` manifest. Measured in this process:

- **loop**: the same tasks built one after another in this process by the very function a
  worker runs (``derivative.batch._task.execute``), no Dask at all: the baseline;
- **batch N**: ``derivative.batch.batch`` on an embedded ``LocalCluster`` of N worker
  processes (cluster start and shutdown included: that is what a user waits for);
- **cluster start**: starting and closing a ``LocalCluster`` of N workers alone.

It prints builds per minute for each, the speed-up against the loop, and the scheduler's
overhead per build two ways: over the whole run, (batch wall time with 1 worker - loop
time) / builds as a ratio of one build's own time (loop time / builds), which includes the
cluster's start and each worker importing the tool once; and in steady state, the median
time from one build's start to the next on the single worker minus the median build, as a
ratio of the median build (the goal's figure: Dask's cost per task, <= 0.10). On this
2-core machine 4 workers cannot beat 2: each build's sandbox and judge already use both
cores part of the time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SPEC = """\
spec tiny version 1
function clamp(x: int, lo: int, hi: int) -> int
    requires: lo <= hi
    requires: -1000000 <= x <= 1000000
    ensures: lo <= result <= hi
    ensures: when lo <= x <= hi, result == x
    example: clamp(5, 0, 3) == 3
"""
CANDIDATE = "def clamp(x: int, lo: int, hi: int) -> int:\n    return max(lo, min(x, hi))\n"


def _manifest(folder: Path, builds: int, examples: int) -> Path:
    (folder / "tiny.req").write_text(SPEC)
    (folder / "tiny.py").write_text(CANDIDATE)
    lines = [{"format": "derivative.batch/v1",
              "defaults": {"sandbox": "process", "examples": examples}}]
    lines += [{"id": f"b{i:04d}", "spec": "tiny.req", "candidate": "tiny.py"}
              for i in range(builds)]
    path = folder / "batch.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def _loop(manifest: Path, folder: Path) -> float:
    from derivative.batch import read_manifest
    from derivative.batch._task import execute

    m = read_manifest(manifest)
    builds = folder / "builds"
    clock = time.perf_counter()
    for task in m.tasks:
        row = execute(task, str(builds))
        assert row["status"] == "verified", row
    return time.perf_counter() - clock


def _batch(manifest: Path, out: Path, workers: int) -> tuple[float, dict[str, int]]:
    from derivative.batch import BatchOptions, batch

    clock = time.perf_counter()
    report = batch(manifest, BatchOptions(workers=workers, out=str(out),
                                          state=str(out.parent / f"state-{workers}")))
    return time.perf_counter() - clock, report.counts()


def _steady_state(out: Path) -> dict[str, float]:
    """From a 1-worker batch's rows: the median build on the worker, the median time from
    one build's start to the next (the build plus Dask's hand-over), and the first build's
    extra time (the worker importing the tool)."""
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    starts = sorted(r["started"] for r in rows)
    build = statistics.median(r["seconds"] for r in rows)
    gap = statistics.median(b - a for a, b in itertools.pairwise(starts))
    first = min(rows, key=lambda r: r["started"])["seconds"]
    return {"build": build, "gap": gap, "per_task": gap - build, "warm_up": first - build}


def _cluster_start(workers: int) -> float:
    import logging

    from distributed import Client, LocalCluster

    clock = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.CRITICAL)
    client = Client(cluster)
    client.close()
    cluster.close()
    return time.perf_counter() - clock


def measure(builds: int, workers: list[int], examples: int) -> dict[str, Any]:
    """Every figure of the module docstring, as a JSON-ready dict."""
    with tempfile.TemporaryDirectory(prefix="derivative-batch-bench-") as tmp:
        folder = Path(tmp)
        manifest = _manifest(folder, builds, examples)
        os.environ.setdefault("DERIVATIVE_STATE", str(folder / "state-loop"))
        loop = _loop(manifest, folder / "loop")
        runs = {}
        for n in workers:
            wall, counts = _batch(manifest, folder / f"batch-{n}", n)
            assert counts == {"verified": builds}, counts
            runs[n] = {"seconds": wall, "per_minute": 60.0 * builds / wall,
                       "speedup": loop / wall, "cluster_start": _cluster_start(n)}
            if n == 1:
                steady = _steady_state(folder / "batch-1")
    per_build = loop / builds
    one = runs.get(1)
    overhead = (one["seconds"] - loop) / builds if one else None
    return {"builds": builds, "examples": examples, "cpus": os.cpu_count(),
            "loop": {"seconds": loop, "per_minute": 60.0 * builds / loop,
                     "per_build": per_build},
            "batch": runs, "overhead_per_build": overhead,
            "overhead_ratio": overhead / per_build if overhead is not None else None,
            "steady": steady if one else None,
            "per_task_ratio": steady["per_task"] / steady["build"] if one else None}


def report(fig: dict[str, Any]) -> str:
    lines = [f"{fig['builds']} builds ({fig['examples']} examples per obligation, process "
             f"sandbox) on {fig['cpus']} CPUs",
             f"loop (no Dask, this process): {fig['loop']['seconds']:.1f} s = "
             f"{fig['loop']['per_minute']:.1f} builds/min ({fig['loop']['per_build']:.3f} s "
             "per build)"]
    for n, r in fig["batch"].items():
        lines.append(f"batch, {n} worker{'s' if n != 1 else ''}: {r['seconds']:.1f} s = "
                     f"{r['per_minute']:.1f} builds/min, {r['speedup']:.2f}x the loop "
                     f"(cluster start+stop alone {r['cluster_start']:.1f} s)")
    if fig["overhead_per_build"] is not None:
        st = fig["steady"]
        lines.append(f"whole-run overhead per build (1 worker vs loop, cluster start and the "
                     f"worker's imports included): {fig['overhead_per_build'] * 1000:.0f} ms = "
                     f"{fig['overhead_ratio']:.3f}x a build's own time")
        lines.append(f"scheduler overhead per task, steady state (median start-to-start "
                     f"{st['gap'] * 1000:.1f} ms - median build {st['build'] * 1000:.1f} ms): "
                     f"{st['per_task'] * 1000:.1f} ms = {fig['per_task_ratio']:.3f}x a build; "
                     f"the worker's first build pays {st['warm_up']:.1f} s of imports once")
    return "\n".join(lines)


def figures(quick: bool = True) -> list[Any]:
    """``run_all``'s rows (quick: 60 builds on 1 and 2 workers; full: 200 on 1, 2 and 4).
    Goals: 2 workers on 2 cores faster than the loop (parallel builds must pay for the
    cluster; a build's sandbox and judge already keep part of a second core busy, so 2.0
    is out of reach), and Dask's overhead per task in steady state at most 0.10 of a
    build's own time."""
    from benchmarks._rows import table_row

    builds, workers = (60, [1, 2]) if quick else (200, [1, 2, 4])
    fig = measure(builds, workers, 20)
    loop = fig["loop"]
    rows = []
    for n, r in fig["batch"].items():
        rows.append(table_row(
            "batch_throughput", f"batch builds/min, {n} Dask worker(s), {builds} builds",
            baseline=f"loop {loop['per_minute']:.0f}/min", ratio=round(r["speedup"], 3),
            goal="> 1.0" if n == 2 else "-", met=(r["speedup"] > 1.0) if n == 2 else None,
            detail=f"{r['per_minute']:.1f} builds/min; cluster start {r['cluster_start']:.1f} s"))
    st = fig["steady"]
    rows.append(table_row(
        "batch_throughput", "Dask overhead per task, steady state (1 worker)",
        baseline=f"median build {st['build']:.3f} s", ratio=round(fig["per_task_ratio"], 3),
        goal="<= 0.10", met=fig["per_task_ratio"] <= 0.10,
        detail=f"{st['per_task'] * 1000:.1f} ms per task; whole run incl. cluster start and "
               f"worker imports {fig['overhead_ratio']:.2f}x a build"))
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--builds", type=int, default=200)
    p.add_argument("--workers", default="1,2,4")
    p.add_argument("--examples", type=int, default=20)
    p.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = p.parse_args(argv)
    fig = measure(args.builds, [int(w) for w in args.workers.split(",")], args.examples)
    print(report(fig))
    if args.json:
        Path(args.json).write_text(json.dumps(fig, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
