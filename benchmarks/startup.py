"""Start-up as a user waits for it: whole processes against ``python -c "import z3"``.

Run from the repository root as ``python benchmarks/startup.py [--runs N]``.

What is timed, each as a fresh process, interleaved in one loop so that every command
sees the same machine load, median of ``--runs`` (default 15):

- the baseline ``python -c "import z3"`` (the same interpreter; also ``python -c pass``
  to show the floor no Python tool goes under);
- ``derivative --version`` and ``--help``;
- ``derivative parse`` and ``derivative check`` of the bundled
  ``examples/password_policy.req``.

The tool is started the way an installed command is: the console script next to the
interpreter when there is one, else ``python -m derivative``.  Before timing, every
command runs once, so compiled bytecode and the grammar's per-user cache exist, as they
do on a user's machine from the second run on; ``PYTHONDONTWRITEBYTECODE`` is removed
from the children's environment for that reason (with it, every start recompiles every
module and measures the compiler).

Goals (issue 15, item 2), ratio against the import of z3 in the same loop:
``--version`` <= 0.5, ``parse`` <= 1.5, ``check`` <= 3.0.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import _whole  # noqa: E402
from benchmarks._rows import TableRow, table_row  # noqa: E402

EXAMPLE = "examples/password_policy.req"
GOALS = {"--version": 0.5, "parse": 1.5, "check": 3.0}


def commands() -> dict[str, list[str]]:
    """Name -> argv, baselines first."""
    tool = _whole.tool()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        'python -c "import z3"': [sys.executable, "-c", "import z3"],
        "--version": [*tool, "--version"],
        "--help": [*tool, "--help"],
        "parse": [*tool, "parse", EXAMPLE],
        "check": [*tool, "check", EXAMPLE],
    }


def _once(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # check of the example exits 0 (feasible)
        raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr.decode()[-300:]}")
    return elapsed


def measure(runs: int) -> dict[str, float]:
    """Median seconds per command, the commands interleaved ``runs`` times."""
    env = _whole.child_env()
    argvs = commands()
    for argv in argvs.values():
        _once(argv, env)  # warm: bytecode, grammar cache, page cache
    times: dict[str, list[float]] = {name: [] for name in argvs}
    for _ in range(runs):
        for name, argv in argvs.items():
            times[name].append(_once(argv, env))
    return {name: statistics.median(ts) for name, ts in times.items()}


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s rows: each command's ratio to importing z3."""
    medians = measure(7 if quick else 15)
    base = medians['python -c "import z3"']
    rows = []
    for name, goal in GOALS.items():
        ratio = medians[name] / base
        rows.append(
            table_row(
                "startup",
                f"derivative {name}"
                + (f" {EXAMPLE.split('/')[-1]}" if name != "--version" else "")
                + ", whole process (median)",
                baseline=f'python -c "import z3" {base:.3f} s',
                ratio=round(ratio, 2),
                goal=f"<= {goal}",
                met=ratio <= goal,
                detail=f"{medians[name]:.3f} s; python -c pass {medians['python -c pass']:.3f} s",
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    medians = measure(args.runs)
    base = medians['python -c "import z3"']
    print(f"{'command':<26} {'median s':>9} {'/ import z3':>12} {'goal':>6}")
    for name, value in medians.items():
        goal = GOALS.get(name)
        print(f"{name:<26} {value:>9.3f} {value / base:>12.2f} {'' if goal is None else goal:>6}")


if __name__ == "__main__":
    main()
