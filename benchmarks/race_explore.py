"""Systematic interleaving exploration versus a barrier stress test, on one race.

Run as ``python benchmarks/race_explore.py [--repeat 5] [--rounds 2000] [--threads 8]
[--json]``.

The target is the check-then-set ``TokenStore.reset`` of the explorer's tests: correct in
sequence, but two concurrent resets of one token can both return ``ok``, which breaks
the count invariant "at most one ok per token".  Measured, in this process:

- ``explore``: ``forge/inside/_explore.py`` on two threads: schedules run and seconds until the
  race is found (the best of ``--repeat``; every repeat must find the same schedule,
  i.e. the result is deterministic), for the ``.get()`` and the ``in`` spelling of the
  check; and the schedules and seconds to explore the locked version exhaustively
  (preemption bound 2) with 2 and 3 threads;
- ``stress``: the usual alternative: ``--threads`` threads released together by a
  ``threading.Barrier`` for ``--rounds`` rounds on a fresh store each round, with
  ``sys.setswitchinterval(1e-6)`` to provoke switches; it counts the rounds in which more
  than one reset returned ok (the usual way to test a race, and one that often sees none:
  0 of 2,000 rounds is typical here);
- ``frontrun`` (only if it is installed): frontrun 0.7's DPOR on the same classes, run
  under its ``frontrun`` launcher in a child process (seconds include nothing but its
  ``explore`` call).

``figures(quick)`` gives ``benchmarks/run_all.py`` three rows: each racy spelling found (at
the same schedule every repeat) where the stress test or frontrun may miss it, and the
locked version explored exhaustively without a false alarm.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._rows import TableRow, table_row
from derivative.forge.inside._explore import ThreadResult, explore


class TokenStore:
    def __init__(self) -> None:
        self._used: dict[str, str] = {}

    def reset(self, token: str, password: str) -> str:
        if self._used.get(token) is not None:
            return "rejected"
        self._used[token] = password
        return "ok"


class InTokenStore:
    def __init__(self) -> None:
        self._used: dict[str, str] = {}

    def reset(self, token: str, password: str) -> str:
        if token in self._used:
            return "rejected"
        self._used[token] = password
        return "ok"


class LockedTokenStore:
    def __init__(self) -> None:
        self._used: dict[str, str] = {}
        self._lock = threading.Lock()

    def reset(self, token: str, password: str) -> str:
        with self._lock:
            if self._used.get(token) is not None:
                return "rejected"
            self._used[token] = password
            return "ok"


def reset_t1(store: Any) -> object:
    return store.reset("t1", "correct horse")


def at_most_one_ok(_store: object, results: tuple[ThreadResult, ...]) -> object:
    oks = sum(1 for r in results if r.value == "ok")
    return oks <= 1 or f"{oks} resets returned ok for one token"


def bench_explore(cls: type, threads: int, repeat: int) -> dict[str, Any]:
    times: list[float] = []
    outcomes = set()
    last = None
    for _ in range(repeat):
        started = time.perf_counter()
        last = explore(cls, [reset_t1] * threads, at_most_one_ok, max_preemptions=2,
                       max_schedules=100_000, timeout=300)
        times.append(time.perf_counter() - started)
        outcomes.add((last.violated, str(last.schedule), last.schedules_run))
    assert last is not None
    return {
        "target": cls.__name__,
        "threads": threads,
        "violated": last.violated,
        "schedule": str(last.schedule) if last.schedule else None,
        "schedules_run": last.schedules_run,
        "exhausted": last.exhausted,
        "seconds_best": min(times),
        "seconds_median": statistics.median(times),
        "deterministic": len(outcomes) == 1,
    }


def bench_stress(threads: int, rounds: int) -> dict[str, Any]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    start_gate = threading.Barrier(threads + 1)
    end_gate = threading.Barrier(threads + 1)
    state: dict[str, Any] = {"store": None, "stop": False}
    results: list[list[object]] = [[] for _ in range(threads)]

    def worker(i: int) -> None:
        while True:
            start_gate.wait()
            if state["stop"]:
                return
            results[i].append(state["store"].reset("t1", "correct horse"))
            end_gate.wait()

    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for t in pool:
        t.start()
    violations = 0
    started = time.perf_counter()
    try:
        for _ in range(rounds):
            state["store"] = TokenStore()
            start_gate.wait()
            end_gate.wait()
            if sum(1 for r in results if r[-1] == "ok") > 1:
                violations += 1
        elapsed = time.perf_counter() - started
        state["stop"] = True
        start_gate.wait()
    finally:
        sys.setswitchinterval(old)
    for t in pool:
        t.join(5)
    return {"threads": threads, "rounds": rounds, "violating_rounds": violations,
            "seconds": elapsed}


_FRONTRUN_SCRIPT = """
from __future__ import annotations
import json, threading, time
import frontrun
{classes}
def measure(cls):
    def setup():
        store = cls(); store.outcomes = []; return store
    def worker(store):
        store.outcomes.append(store.reset("t1", "correct horse"))
    started = time.perf_counter()
    r = frontrun.explore(setup=setup, workers=worker, count=2,
                         invariant=lambda s: s.outcomes.count("ok") <= 1,
                         reproduce_on_failure=0, total_timeout=120.0)
    return {{"target": cls.__name__, "holds": r.property_holds,
             "explored": r.num_explored, "seconds": time.perf_counter() - started}}
print(json.dumps([measure(c) for c in ({names},)]))
"""


def bench_frontrun() -> list[dict[str, Any]] | str:
    if importlib.util.find_spec("frontrun") is None:
        return "frontrun is not installed"
    classes = [TokenStore, InTokenStore, LockedTokenStore]
    source = "\n\n".join(textwrap.dedent(inspect.getsource(c)) for c in classes)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "fr.py")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write(_FRONTRUN_SCRIPT.format(
                classes=source, names=", ".join(c.__name__ for c in classes)))
        launcher = "import sys; from frontrun.cli import main; sys.exit(main(sys.argv[1:]))"
        proc = subprocess.run([sys.executable, "-c", launcher, sys.executable, script],
                              capture_output=True, text=True, timeout=600, cwd=tmp)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("[")]
    if proc.returncode != 0 or not lines:
        return f"frontrun failed: {proc.stderr[-500:]}"
    out: list[dict[str, Any]] = json.loads(lines[-1])
    return out


def measure(repeat: int, rounds: int, threads: int) -> dict[str, Any]:
    """Every figure of the module docstring, as the ``--json`` report."""
    return {
        "python": sys.version.split()[0],
        "explore": [
            bench_explore(TokenStore, 2, repeat),
            bench_explore(InTokenStore, 2, repeat),
            bench_explore(TokenStore, 3, repeat),
            bench_explore(LockedTokenStore, 2, repeat),
            bench_explore(LockedTokenStore, 3, max(1, repeat // 2)),
        ],
        "stress": bench_stress(threads, rounds),
        "frontrun": bench_frontrun(),
    }


def print_report(report: dict[str, Any]) -> None:
    print(f"Python {report['python']}")
    print("explore (preemption bound 2):")
    for r in report["explore"]:
        verdict = (f"race found at schedule {r['schedules_run']} ({r['schedule']})"
                   if r["violated"] else
                   f"no violation, {'exhausted' if r['exhausted'] else 'budget hit'} after "
                   f"{r['schedules_run']} schedules")
        print(f"  {r['target']:<17} x{r['threads']}: {verdict}; best {r['seconds_best']:.4f} s,"
              f" median {r['seconds_median']:.4f} s; deterministic: {r['deterministic']}")
    s = report["stress"]
    print(f"stress ({s['threads']} threads x {s['rounds']} rounds, switch interval 1e-6):"
          f" {s['violating_rounds']} violating rounds in {s['seconds']:.2f} s")
    fr = report["frontrun"]
    if isinstance(fr, str):
        print(f"frontrun: {fr}")
    else:
        for r in fr:
            print(f"frontrun {r['target']:<17} x2: holds={r['holds']} after {r['explored']}"
                  f" interleavings, {r['seconds']:.3f} s")


def _frontrun_says(report: dict[str, Any], target: str) -> str:
    """What frontrun's DPOR said about ``target`` (two threads), for a baseline cell."""
    fr = report["frontrun"]
    if isinstance(fr, str):
        return fr
    r = next(x for x in fr if x["target"] == target)
    verdict = "holds" if r["holds"] else "race found"
    return f"frontrun: {verdict} after {r['explored']} interleavings"


def _explored(report: dict[str, Any], target: str, threads: int) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in report["explore"]
                                 if r["target"] == target and r["threads"] == threads)
    return found


def _race_row(report: dict[str, Any], target: str, spelling: str, baseline: str) -> TableRow:
    """A racy store: the explorer must find the race, at the same schedule every repeat."""
    r = _explored(report, target, 2)
    figure = (f"found at schedule {r['schedules_run']}" if r["violated"]
              else f"NOT found in {r['schedules_run']} schedules")
    return table_row(
        "race_explore", f"explore: check-then-set race, {spelling} (2 threads)",
        baseline=baseline, ratio=figure, goal="found, same schedule every repeat",
        met=bool(r["violated"] and r["deterministic"]),
        detail=(f"schedule {r['schedule']}, best {r['seconds_best']:.4f} s; "
                f"{_frontrun_says(report, target)}"),
    )


def _locked_row(report: dict[str, Any]) -> TableRow:
    """The locked store: exhausting its schedules must find nothing (no false alarm)."""
    r = _explored(report, "LockedTokenStore", 3)
    ok = not r["violated"] and r["exhausted"] and r["deterministic"]
    return table_row(
        "race_explore", "explore: locked store, every schedule (3 threads)",
        baseline=_frontrun_says(report, "LockedTokenStore") + " (2 threads)",
        ratio=f"{'no violation' if not r['violated'] else 'VIOLATION'} in "
              f"{r['schedules_run']} schedules",
        goal="exhausted, no violation", met=bool(ok),
        detail=f"best {r['seconds_best']:.3f} s; exhausted: {r['exhausted']}",
    )


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s rows (quick: 3 repeats, 8 threads x 1,000 stress rounds; full: 5 and
    2,000, the defaults): the explorer finds the race where a stress test may not."""
    repeat, rounds, threads = (3, 1000, 8) if quick else (5, 2000, 8)
    report = measure(repeat, rounds, threads)
    s = report["stress"]
    stress = (f"stress {s['threads']} threads x {s['rounds']} rounds: "
              f"{s['violating_rounds']} violating")
    return [
        _race_row(report, "TokenStore", "`.get()`", stress),
        _race_row(report, "InTokenStore", "`in`", _frontrun_says(report, "InTokenStore")),
        _locked_row(report),
    ]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)

    report = measure(args.repeat, args.rounds, args.threads)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print_report(report)


if __name__ == "__main__":
    main()
