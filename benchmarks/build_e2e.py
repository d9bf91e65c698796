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
  (opening the ledger, journalling the build, ``build_spec.json``), ``artifacts``,
  ``package``, ``publish`` (the ledger commit, the rename, ``outcome.json``) — as a share of
  the total. The goal is under 10%.

Each build is repeated ``--repeat`` times with the examples taking turns (a slow spell of
the machine hits them all); the figures are those of the run with the median total. One
build is run first and thrown away, so that no figure pays the imports.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import derivative
from derivative._errors import SandboxUnavailable
from derivative.forge.build import BuildOptions
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
SETUP = "(set-up)"  # from the call to the first gate


@dataclass
class Timed:
    """One build: its status, total wall time and seconds per gate."""

    case: str
    backend: str
    status: str
    total: float
    gates: dict[str, float] = field(default_factory=dict)

    def figure(self, name: str) -> float:
        return sum(self.gates.get(g, 0.0) for g in FIGURES[name])

    @property
    def overhead(self) -> float:
        named = {g for gates in FIGURES.values() for g in gates}
        return sum(s for g, s in self.gates.items() if g not in named)

    def to_json(self) -> dict[str, Any]:
        return {
            "example": self.case, "backend": self.backend, "status": self.status,
            "total_s": round(self.total, 4),
            "gates_s": {g: round(s, 4) for g, s in self.gates.items()},
            "figures_s": {n: round(self.figure(n), 4) for n in FIGURES},
            "overhead_s": round(self.overhead, 4),
            "overhead_ratio": round(self.overhead / self.total, 4),
        }


def timed_build(case: str, backend: str, work: Path, examples: int) -> Timed:
    """One build of ``case`` on ``backend`` through the API, timed gate by gate."""
    specs, extra, _ = CASES[case]
    loaded = derivative.load(specs)
    out = Path(tempfile.mkdtemp(prefix="build-", dir=work)) / "out"
    options = BuildOptions(sandbox=cast(BackendName, backend), out=str(out),
                           state=str(work / "state"), examples=examples, **extra)
    marks: list[tuple[str, float]] = []

    def progress(gate: str, detail: str) -> None:
        marks.append((gate, time.perf_counter()))

    began = time.perf_counter()
    report = derivative.build(loaded, options, progress=progress)
    ended = time.perf_counter()
    gates: dict[str, float] = {}
    starts = [(SETUP, began), *marks]
    for (gate, start), (_, stop) in zip(starts, [*marks, ("", ended)], strict=True):
        gates[gate] = gates.get(gate, 0.0) + (stop - start)
    shutil.rmtree(out.parent, ignore_errors=True)
    return Timed(case, backend, report.status, ended - began, gates)


def available(backends: list[str]) -> list[str]:
    """The backends this machine can give (Docker needs the engine and the image)."""
    found = []
    for name in backends:
        if name == "docker":
            from derivative.forge.sandbox._docker import DockerLauncher

            try:
                DockerLauncher.connect()
            except SandboxUnavailable as exc:
                print(f"docker: unavailable, not measured: {exc}")
                continue
        found.append(name)
    return found


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
    named = {g for gates in FIGURES.values() for g in gates}
    parts = sorted({g for r in chosen for g in r.gates if g not in named},
                   key=lambda g: [SETUP, "freeze", "artifacts", "package", "publish"].index(g)
                   if g in (SETUP, "freeze", "artifacts", "package", "publish") else 99)
    head = f"{'example':<17} {'backend':<8} " + "  ".join(f"{p:>10}" for p in parts)
    lines = [head, "-" * len(head)]
    for r in chosen:
        cells = "  ".join(f"{r.gates[p] * 1000:>8.1f}ms" if p in r.gates else f"{'-':>10}"
                          for p in parts)
        lines.append(f"{r.case:<17} {r.backend:<8} {cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backends", default="process,docker")
    parser.add_argument("--examples", type=int, default=BuildOptions.examples,
                        help="generated inputs per function or operation (the build's default)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    backends = available([b.strip() for b in args.backends.split(",") if b.strip()])

    work = Path(tempfile.mkdtemp(prefix="derivative-bench-build-"))
    try:
        timed_build("discount --synth", "process", work, args.examples)  # imports, caches
        runs: dict[tuple[str, str], list[Timed]] = {}
        for _ in range(args.repeat):
            for backend in backends:
                for case in CASES:
                    run = timed_build(case, backend, work, args.examples)
                    runs.setdefault((case, backend), []).append(run)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    chosen = [median_run(r) for r in runs.values()]
    wrong = [f"{r.case} on {r.backend}: {r.status}, expected {CASES[r.case][2]}"
             for r in chosen if r.status != CASES[r.case][2]]
    print(f"derivative build, each example {args.repeat}x on {', '.join(backends)} "
          f"(the run with the median total; shares of its wall time)")
    print(table(chosen))
    print("\npipeline overhead by part (the same runs)")
    print(overhead_table(chosen))
    worst = max(chosen, key=lambda r: r.overhead / r.total)
    verdict = "meets" if worst.overhead / worst.total < OVERHEAD_GOAL else "MISSES"
    print(f"\nlargest pipeline overhead: {worst.overhead / worst.total:.1%} "
          f"({worst.case} on {worst.backend}; goal < {OVERHEAD_GOAL:.0%}: {verdict})")
    reset = runs.get((PASSWORD_RESET, "process"), [])
    if reset:
        totals = [r.total for r in reset]
        print(f"verified build of the password-reset example on the process backend: "
              f"{statistics.median(totals):.3f} s median (min {min(totals):.3f} s, "
              f"max {max(totals):.3f} s, {len(totals)} builds)")
    for line in wrong:
        print(f"UNEXPECTED: {line}")
    if args.json:
        document = {
            "format": "derivative.bench-build-e2e/v1",
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                        "platform": platform.platform()},
            "repeat": args.repeat, "examples": args.examples, "backends": backends,
            "overhead_goal": OVERHEAD_GOAL,
            "runs": [r.to_json() for rs in runs.values() for r in rs],
            "median_runs": [r.to_json() for r in chosen],
            "password_reset_process_s": (statistics.median(r.total for r in reset)
                                         if reset else None),
        }
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
