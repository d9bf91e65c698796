"""What a build costs, gate by gate: the bundled examples through ``derivative.build``.

Run as ``python benchmarks/build_e2e.py [--repeat 3] [--backends process,docker]
[--examples 100] [--json PATH]``.  Not run in CI.

Each example is built through the public API (``derivative.build``, the function behind
``derivative build``) on every backend asked for and available (the process sandbox always;
Docker when the engine and the image are there), each build in a fresh folder with its own
ledger record in a temporary state folder:

- ``discount --synth``: the built-in synthesiser's candidate, ``verified``;
- ``contracts good``: a folder candidate with its own tests, ``verified``;
- ``contracts wrong``: a boundary bug, ``validation_failed``;
- ``limits``: two files that contradict each other, ``infeasible_proven`` (no sandbox);
- ``password reset``: ``password_policy.req`` (two functions and a stateful system with a
  concurrency invariant) against ``examples/candidates/password_policy.py``, ``verified``.
  The module needs no ``--module``: a ``.py`` candidate is its own module.

The time of each gate is read from the build's ``progress`` callback: a gate lasts from its
start to the next gate's start (the last one to the return of ``build``). The figures:

- **solver**: ``feasibility`` (the check and the test plan's solver queries);
- **sandbox start**: ``sandbox`` (staging, starting and isolating the sandbox, importing the
  candidate) — the run room reports it through the same callback;
- **obligations**: every obligation through the sandbox, closing it included;
- **own tests**: the candidate's own tests, each in a sandbox of its own (never evidence);
- **candidate** (``synthesise``) and **posture** (the static validator);
- **pipeline overhead**: everything else — the API's set-up before the first gate, ``freeze``
  (opening the ledger, journalling the build, ``build_spec.json``), ``judged files`` (each
  attempt's files kept in the build folder, its import closure read), ``artifacts``,
  ``package``, ``publish`` (the ledger commit, the rename, ``outcome.json``) — as a share of
  the total. The goal is under 10%.

Most of that overhead is the disk: every build file is written to a temporary name, synced
and renamed, and the ledger commits three times with ``synchronous=FULL`` (begun, the record,
ended), each the durability docs/build.md promises. So the benchmark also measures, during
each build, the time spent in ``os.fsync`` and in ledger write transactions (**disk waits**),
and on its own the machine's latency for one small durable write and one ledger commit: on a
shared or virtual disk those swing from about a millisecond to tens of milliseconds, and the
overhead's share with them.

Each build is repeated ``--repeat`` times with the examples taking turns (a slow spell of
the machine hits them all); the figures are those of the run with the median total. One
build is run first and thrown away, so that no figure pays the imports.
``figures(quick)`` gives ``benchmarks/run_all.py`` the largest overhead share per backend,
with where the password-reset build's time goes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import derivative
from benchmarks._rows import TableRow, not_measured, table_row
from derivative._errors import SandboxUnavailable
from derivative.forge.build import BuildOptions, Ledger
from derivative.forge.sandbox import BackendName

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
OVERHEAD_GOAL = 0.10

# name -> (spec files, BuildOptions fields, expected status)
CASES: dict[str, tuple[list[Path], dict[str, Any], str]] = {
    "discount --synth": ([EXAMPLES / "discount.req"], {"synth": True}, "verified"),
    "contracts good": ([EXAMPLES / "contracts" / "expiry.req"],
                       {"candidate": str(EXAMPLES / "contracts" / "good"),
                        "module": "contract_expiry"}, "verified"),
    "contracts wrong": ([EXAMPLES / "contracts" / "expiry.req"],
                        {"candidate": str(EXAMPLES / "contracts" / "wrong"),
                         "module": "contract_expiry"}, "validation_failed"),
    "limits": ([EXAMPLES / "limits" / "feature.req", EXAMPLES / "limits" / "policy.req"],
               {"candidate": str(EXAMPLES / "candidates" / "password_policy.py")},
               "infeasible_proven"),
    "password reset": ([EXAMPLES / "password_policy.req"],
                       {"candidate": str(EXAMPLES / "candidates" / "password_policy.py")},
                       "verified"),
}
PASSWORD_RESET = "password reset"

# which gates make up each reported figure; whatever is not named is pipeline overhead
FIGURES: dict[str, tuple[str, ...]] = {
    "solver": ("feasibility",),
    "candidate": ("synthesise", "generate", "repair"),
    "posture": ("posture",),
    "sandbox start": ("sandbox",),
    "obligations": ("obligations",),
    "own tests": ("own tests",),
}
NAMED = {g for gates in FIGURES.values() for g in gates}
SETUP = "(set-up)"  # from the call to the first gate


@dataclass
class Timed:
    """One build: its status, total wall time and seconds per gate."""

    case: str
    backend: str
    status: str
    total: float
    gates: dict[str, float] = field(default_factory=dict)
    disk: dict[str, float] = field(default_factory=dict)  # gate -> seconds waiting for disk

    def figure(self, name: str) -> float:
        return sum(self.gates.get(g, 0.0) for g in FIGURES[name])

    @property
    def overhead(self) -> float:
        return sum(s for g, s in self.gates.items() if g not in NAMED)

    @property
    def overhead_disk(self) -> float:
        """Of the overhead, the seconds spent waiting for the disk."""
        return sum(s for g, s in self.disk.items() if g not in NAMED)

    def to_json(self) -> dict[str, Any]:
        return {
            "example": self.case, "backend": self.backend, "status": self.status,
            "total_s": round(self.total, 4),
            "gates_s": {g: round(s, 4) for g, s in self.gates.items()},
            "figures_s": {n: round(self.figure(n), 4) for n in FIGURES},
            "overhead_s": round(self.overhead, 4),
            "overhead_ratio": round(self.overhead / self.total, 4),
            "disk_waits_s": {g: round(x, 4) for g, x in self.disk.items()},
            "overhead_disk_waits_s": round(self.overhead_disk, 4),
        }


class DiskClock:
    """Time spent waiting for the disk while a build runs: every ``os.fsync`` (the atomic
    writes of the build folder) and every ledger write transaction (SQLite syncs inside)."""

    def __init__(self) -> None:
        self.gate = SETUP
        self.by_gate: dict[str, float] = {}

    @property
    def seconds(self) -> float:
        return sum(self.by_gate.values())

    def _add(self, seconds: float) -> None:
        self.by_gate[self.gate] = self.by_gate.get(self.gate, 0.0) + seconds

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        real_fsync = os.fsync
        real_write = Ledger._write

        def fsync(fd: Any) -> None:
            began = time.perf_counter()
            try:
                real_fsync(fd)
            finally:
                self._add(time.perf_counter() - began)

        @contextlib.contextmanager
        def write(ledger: Ledger, **kwargs: bool) -> Iterator[sqlite3.Connection]:
            began = time.perf_counter()
            try:
                with real_write(ledger, **kwargs) as conn:
                    yield conn
            finally:
                self._add(time.perf_counter() - began)

        os.fsync = fsync
        Ledger._write = write  # type: ignore[method-assign, assignment]
        try:
            yield
        finally:
            os.fsync = real_fsync
            Ledger._write = real_write  # type: ignore[method-assign]


def disk_latency(folder: Path, tag: str, rounds: int = 20) -> tuple[float, float]:
    """Median seconds for one small durable write (write, fsync, fsync of the folder) and for
    one ledger commit on this machine's disk, measured outside any build."""
    writes, commits = [], []
    ledger = Ledger(folder / "latency")
    for i in range(rounds):
        began = time.perf_counter()
        fd = os.open(folder / f"probe-{tag}-{i}", os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, b"x" * 4096)
        os.fsync(fd)
        os.close(fd)
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        os.fsync(dfd)
        os.close(dfd)
        writes.append(time.perf_counter() - began)
        began = time.perf_counter()
        with ledger._write() as conn:
            conn.execute("INSERT INTO ended (build_id, ended_at) VALUES (?, ?)",
                         (f"probe-{tag}-{i}", "2000-01-01T00:00:00Z"))
        commits.append(time.perf_counter() - began)
    return statistics.median(writes), statistics.median(commits)


def timed_build(case: str, backend: str, work: Path, examples: int) -> Timed:
    """One build of ``case`` on ``backend`` through the API, timed gate by gate."""
    specs, extra, _ = CASES[case]
    loaded = derivative.load(specs)
    out = Path(tempfile.mkdtemp(prefix="build-", dir=work)) / "out"
    options = BuildOptions(sandbox=cast(BackendName, backend), out=str(out),
                           state=str(work / "state"), examples=examples, **extra)
    marks: list[tuple[str, float]] = []

    clock = DiskClock()

    def progress(gate: str, detail: str) -> None:
        marks.append((gate, time.perf_counter()))
        clock.gate = gate
    with clock.watching():
        began = time.perf_counter()
        report = derivative.build(loaded, options, progress=progress)
        ended = time.perf_counter()
    gates: dict[str, float] = {}
    starts = [(SETUP, began), *marks]
    for (gate, start), (_, stop) in zip(starts, [*marks, ("", ended)], strict=True):
        gates[gate] = gates.get(gate, 0.0) + (stop - start)
    shutil.rmtree(out.parent, ignore_errors=True)
    return Timed(case, backend, report.status, ended - began, gates, dict(clock.by_gate))


def available(backends: list[str]) -> tuple[list[str], dict[str, str]]:
    """The backends this machine can give (Docker needs the engine and the image), and
    why each other one cannot be used."""
    found: list[str] = []
    missing: dict[str, str] = {}
    for name in backends:
        if name == "docker":
            from derivative.forge.sandbox._docker import DockerLauncher

            try:
                DockerLauncher.connect()
            except SandboxUnavailable as exc:
                missing[name] = str(exc)
                continue
        found.append(name)
    return found, missing


def median_run(runs: list[Timed]) -> Timed:
    ordered = sorted(runs, key=lambda r: r.total)
    return ordered[(len(ordered) - 1) // 2]


def table(chosen: list[Timed]) -> str:
    head = (f"{'example':<17} {'backend':<8} {'status':<18} {'total':>8}  "
            + "  ".join(f"{n:>13}" for n in FIGURES) + f"  {'overhead':>9}")
    lines = [head, "-" * len(head)]
    for r in chosen:
        cells = "  ".join(f"{r.figure(n) / r.total:>12.1%} " if r.figure(n) else f"{'-':>13}"
                          for n in FIGURES)
        lines.append(f"{r.case:<17} {r.backend:<8} {r.status:<18} {r.total:>7.3f}s  {cells}"
                     f"  {r.overhead / r.total:>9.1%}")
    return "\n".join(lines)


def overhead_table(chosen: list[Timed]) -> str:
    order = [SETUP, "freeze", "judged files", "artifacts", "package", "publish"]
    parts = sorted({g for r in chosen for g in r.gates if g not in NAMED},
                   key=lambda g: order.index(g) if g in order else len(order))
    head = (f"{'example':<17} {'backend':<8} " + "  ".join(f"{p:>12}" for p in parts)
            + f"  {'disk waits':>10}  {'overhead w/o disk':>17}")
    lines = [head, "-" * len(head)]
    for r in chosen:
        cells = "  ".join(f"{r.gates[p] * 1000:>10.1f}ms" if p in r.gates else f"{'-':>12}"
                          for p in parts)
        rest = (r.overhead - r.overhead_disk) / r.total
        lines.append(f"{r.case:<17} {r.backend:<8} {cells}  {r.overhead_disk * 1000:>8.1f}ms  "
                     f"{rest:>17.1%}")
    return "\n".join(lines)


@dataclass
class Measured:
    """Every build of a run, and the disk's latency before and after them."""

    backends: list[str]
    repeat: int
    examples: int
    runs: dict[tuple[str, str], list[Timed]]
    before: tuple[float, float]
    after: tuple[float, float]

    @property
    def chosen(self) -> list[Timed]:
        """Per example and backend, the run with the median total."""
        return [median_run(r) for r in self.runs.values()]

    @property
    def wrong(self) -> list[str]:
        """Builds that did not end as their example should."""
        return [f"{r.case} on {r.backend}: {r.status}, expected {CASES[r.case][2]}"
                for r in self.chosen if r.status != CASES[r.case][2]]

    @property
    def reset(self) -> list[Timed]:
        """The password-reset builds on the process backend (for their median total)."""
        return self.runs.get((PASSWORD_RESET, "process"), [])


def worst_overhead(chosen: list[Timed]) -> Timed:
    return max(chosen, key=lambda r: r.overhead / r.total)


def measure(backends: list[str], repeat: int, examples: int) -> Measured:
    """Every example ``repeat`` times on each backend, taking turns; one build thrown away
    first so that no figure pays the imports."""
    work = Path(tempfile.mkdtemp(prefix="derivative-bench-build-"))
    try:
        before = disk_latency(work, "before")
        timed_build("discount --synth", "process", work, examples)  # imports, caches
        runs: dict[tuple[str, str], list[Timed]] = {}
        for _ in range(repeat):
            for backend in backends:
                for case in CASES:
                    run = timed_build(case, backend, work, examples)
                    runs.setdefault((case, backend), []).append(run)
        after = disk_latency(work, "after")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Measured(backends, repeat, examples, runs, before, after)


def report(m: Measured) -> None:
    """The printout of a run (the command line's output)."""
    chosen = m.chosen
    print(f"derivative build, each example {m.repeat}x on {', '.join(m.backends)} "
          f"(the run with the median total; shares of its wall time)")
    print(table(chosen))
    print("\npipeline overhead by part (the same runs); disk waits: the overhead's time in "
          "os.fsync and ledger commits")
    print(overhead_table(chosen))
    print(f"this machine's disk: a small durable write {m.before[0] * 1000:.1f} ms before the "
          f"builds, {m.after[0] * 1000:.1f} ms after; a ledger commit "
          f"{m.before[1] * 1000:.1f} ms before, {m.after[1] * 1000:.1f} ms after (medians of 20)")
    worst = worst_overhead(chosen)
    verdict = "meets" if worst.overhead / worst.total < OVERHEAD_GOAL else "MISSES"
    print(f"\nlargest pipeline overhead: {worst.overhead / worst.total:.1%} "
          f"({worst.case} on {worst.backend}; goal < {OVERHEAD_GOAL:.0%}: {verdict})")
    if m.reset:
        totals = [r.total for r in m.reset]
        print(f"verified build of the password-reset example on the process backend: "
              f"{statistics.median(totals):.3f} s median (min {min(totals):.3f} s, "
              f"max {max(totals):.3f} s, {len(totals)} builds)")
    for line in m.wrong:
        print(f"UNEXPECTED: {line}")


def write_json(path: str, m: Measured) -> None:
    """The figures as ``derivative.bench-build-e2e/v1`` JSON (``--json PATH``)."""
    document = {
        "format": "derivative.bench-build-e2e/v1",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "platform": platform.platform()},
        "repeat": m.repeat, "examples": m.examples, "backends": m.backends,
        "overhead_goal": OVERHEAD_GOAL,
        "disk_latency_s": {"durable_write": [m.before[0], m.after[0]],
                           "ledger_commit": [m.before[1], m.after[1]]},
        "runs": [r.to_json() for rs in m.runs.values() for r in rs],
        "median_runs": [r.to_json() for r in m.chosen],
        "password_reset_process_s": (statistics.median(r.total for r in m.reset)
                                     if m.reset else None),
    }
    Path(path).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def where_time_goes(r: Timed) -> str:
    """Shares of one build's wall time by figure, the overhead last."""
    shares = [f"{n} {r.figure(n) / r.total:.0%}" for n in FIGURES if r.figure(n)]
    return ", ".join([*shares, f"overhead {r.overhead / r.total:.0%}"])


def _backend_row(m: Measured, backend: str, missing: dict[str, str]) -> TableRow:
    """A backend's largest overhead share against the goal, where the time goes beside it."""
    figure = f"build pipeline overhead, worst of {len(CASES)} examples ({backend})"
    goal = f"< {OVERHEAD_GOAL}"
    chosen = [r for r in m.chosen if r.backend == backend]
    if not chosen:
        why = missing.get(backend, "not asked for")
        return table_row("build_e2e", figure, baseline="-", ratio=not_measured(why),
                         goal=goal, met=None, detail=why)
    worst = worst_overhead(chosen)
    share = worst.overhead / worst.total
    reset = next((r for r in chosen if r.case == PASSWORD_RESET), None)
    detail = (f"{worst.overhead * 1000:.0f} ms of {worst.case}'s build, "
              f"{worst.overhead_disk * 1000:.0f} ms of it disk waits; "
              f"disk: durable write {m.before[0] * 1000:.1f} ms, ledger commit "
              f"{m.before[1] * 1000:.1f} ms; median of {m.repeat}")
    if reset is not None:
        detail += (f"; password reset verified in {reset.total:.2f} s: "
                   f"{where_time_goes(reset)}")
    return table_row("build_e2e", figure, baseline=f"{worst.case} total {worst.total:.3f} s",
                     ratio=share, goal=goal, met=share < OVERHEAD_GOAL, detail=detail)


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s rows, one per backend (quick: each example twice, the faster kept;
    full: three times, the median, the default); a build that ends wrongly is an error."""
    backends, missing = available(["process", "docker"])
    m = measure(backends, 2 if quick else 3, BuildOptions.examples)
    if m.wrong:
        raise AssertionError("; ".join(m.wrong))
    return [_backend_row(m, backend, missing) for backend in ("process", "docker")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backends", default="process,docker")
    parser.add_argument("--examples", type=int, default=BuildOptions.examples,
                        help="generated inputs per function or operation (the build's default)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    backends, missing = available([b.strip() for b in args.backends.split(",") if b.strip()])
    for name, why in missing.items():
        print(f"{name}: unavailable, not measured: {why}")
    m = measure(backends, args.repeat, args.examples)
    report(m)
    if args.json:
        write_json(args.json, m)
    return 1 if m.wrong else 0


if __name__ == "__main__":
    sys.exit(main())
