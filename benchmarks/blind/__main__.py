"""``python -m benchmarks.blind freeze|run|check ROUND``: see the package docstring."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._round import RoundError, check_frozen, freeze, git, read_cases, round_dir, run_label
from ._run import Judged, batch_manifest, figures, render, rows, run_oracle


def _run(args: argparse.Namespace) -> int:
    from derivative import __version__
    from derivative.batch import BatchOptions, batch

    doc = check_frozen(args.round)
    label, why = run_label(args.round, doc)
    cases = read_cases(round_dir(args.round))
    clock = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="derivative-blind-") as tmp:
        manifest = batch_manifest(cases, Path(tmp), sandbox=args.sandbox,
                                  examples=args.examples)
        out = Path(args.out) if args.out else Path(tmp) / "batch"
        report = batch(manifest, BatchOptions(workers=args.workers, out=str(out),
                                              state=str(Path(tmp) / "state")),
                       notify=lambda r, d, n: print(f"[{d}/{n}] {r['id']}: {r['status']}",
                                                    file=sys.stderr))
    by_id = {r["id"]: r for r in report.rows}
    judged = []
    for case in cases:
        for n, cand in enumerate(case.candidates, start=1):
            j = Judged(case, cand, n, by_id[f"{case.id}--{n}"])
            if case.oracle is not None:
                j.oracle = run_oracle(case, cand, sandbox=args.sandbox,
                                      contract_sha256=j.row["spec"]["sha256"])
            judged.append(j)
    result: dict[str, Any] = {
        "format": "derivative.blind-result/v1", "round": args.round, "label": label,
        "label_why": why, "frozen_at": doc["frozen_at"], "frozen_commit": doc["tool_commit"],
        "tool_commit": git("rev-parse", "HEAD"), "tool_version": __version__,
        "date": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "workers": report.workers, "sandbox": args.sandbox, "examples": args.examples,
        "seconds": round(time.perf_counter() - clock, 1),
        "figures": figures(judged), "rows": rows(judged),
    }
    results = round_dir(args.round) / "results"
    results.mkdir(exist_ok=True)
    name = "blind.json" if label == "blind" else \
        f"replay-{result['date'].replace(':', '')}-{(result['tool_commit'] or 'nogit')[:12]}.json"
    (results / name).write_text(json.dumps(result, indent=2, sort_keys=True) + "\n",
                                encoding="utf-8")
    print(render(result))
    print(f"\nwritten: {results / name}")
    return 0 if result["figures"]["false_verified"]["count"] == 0 else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.blind",
                                description=(__doc__ or "").splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("freeze", help="freeze a round: SHA-256 of every file, date, commit")
    f.add_argument("round")
    c = sub.add_parser("check", help="check a frozen round's files against its manifest")
    c.add_argument("round")
    r = sub.add_parser("run", help="run a frozen round (blind the first time, else replay)")
    r.add_argument("round")
    r.add_argument("--workers", type=int, default=None)
    r.add_argument("--sandbox", default="auto", choices=("auto", "docker", "process"))
    r.add_argument("--examples", type=int, default=None,
                   help="examples per obligation (default: the build's default)")
    r.add_argument("--out", default=None, help="keep the batch folder here")
    args = p.parse_args(argv)
    try:
        if args.command == "freeze":
            doc = freeze(args.round)
            print(f"froze round {args.round}: {len(doc['cases'])} cases, {len(doc['files'])} "
                  f"files, tool {doc['tool_commit']}")
            return 0
        if args.command == "check":
            check_frozen(args.round)
            print(f"round {args.round}: every file is as frozen")
            return 0
        return _run(args)
    except RoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
