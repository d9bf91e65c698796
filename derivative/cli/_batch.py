"""``derivative batch``: many builds on a Dask cluster, one results table.

    derivative batch MANIFEST [--workers N | --scheduler ADDRESS] [--out DIR] [--state DIR]
                     [--json]

The manifest is JSON Lines (docs/batch.md): an optional header, then one build per line.
Each task is one ``derivative build`` with its own sandbox on a Dask worker; this process
writes ``results.jsonl``, ``results.csv`` and the ledger as results arrive.

Exit codes: 0 every task has a build status (whatever it is: a batch is a measurement),
2 bad input (the manifest, a spec, or a task the build refused as bad input), 75 a task
whose worker died twice (``interrupted``), or no scheduler at the address.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from ._arguments import positive_int, positive_seconds

HELP = "build many (spec, candidate) pairs on a Dask cluster and write one results table"


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("manifest", metavar="MANIFEST",
                   help="a JSON Lines file: one build per line (docs/batch.md)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=positive_int, default=None, metavar="N",
                       help="worker processes of the embedded Dask LocalCluster (default: "
                       "this machine's CPUs)")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="send the builds to an existing Dask cluster (tcp://HOST:PORT); "
                       "its workers must see the same files")
    p.add_argument("--connect-timeout", type=positive_seconds, default=30.0, metavar="SECONDS",
                   help="how long to wait for --scheduler to answer (default 30)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="the batch folder (default derivative-batches/MANIFEST-TIME-PID)")
    p.add_argument("--state", default=None, metavar="DIR",
                   help="the state folder holding the ledger (default: $DERIVATIVE_STATE, "
                   "else the user's data directory)")
    p.add_argument("--json", action="store_true",
                   help="print every result row as a JSON line, then the summary")


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from derivative.batch import BatchOptions, batch

    options = BatchOptions(workers=args.workers, scheduler=args.scheduler, out=args.out,
                           state=args.state,
                           connect_seconds=args.connect_timeout)
    live = stderr.isatty() if hasattr(stderr, "isatty") else False

    def notify(row: dict[str, Any], done: int, total: int) -> None:
        if args.json:
            stdout.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
            stdout.flush()
        elif live or stderr is not sys.stderr:
            stderr.write(f"[{done}/{total}] {row['id']}: {row['status']}"
                         f" ({row.get('seconds', 0):.1f} s)\n")

    report = batch(args.manifest, options, notify=notify)
    counts = ", ".join(f"{n} {status}" for status, n in report.counts().items())
    summary = (f"batch: {len(report.rows)} builds in {report.seconds:.1f} s on "
               f"{report.workers} workers ({report.scheduler}): {counts}\n"
               f"results: {report.folder / 'results.jsonl'} and results.csv\n")
    if args.json:
        stdout.write(json.dumps({"format": "derivative.batch-summary/v1",
                                 "folder": str(report.folder), "counts": report.counts(),
                                 "seconds": round(report.seconds, 3),
                                 "exit_code": report.exit_code}, sort_keys=True) + "\n")
    else:
        stdout.write(summary)
    return report.exit_code
