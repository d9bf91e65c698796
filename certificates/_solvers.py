"""Re-checking an SMT-LIB script in fresh solver processes.

A certificate is only checked independently if the solver that re-checks it shares
nothing with the process that found the conflict: no Z3 context, no cached
declarations, no global options.  So every check starts a new Python process
running ``_solver_worker.py`` (standard library plus one solver) with the script on
standard input.  z3 and cvc5 run in parallel, so a check costs one process start,
not two.  A solver whose Python package is missing is reported as ``missing``, never
silently skipped.

What a solver may spend is bounded by its own resource units (``RLIMITS``), which
count work, not time: the same script gets the same answer, a proof or none, on an
idle and on a loaded machine, and running out is the solver's ``unknown``
("resource limit reached").  The wall clock (``timeout``) is only a safety net
against a hang: a process still running then is killed and reported as ``timeout``,
an operational failure that says nothing about the script (callers turn it into
``OperationalTimeout`` rather than record an answer that depends on the machine).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from derivative._record import record

__all__ = [
    "DEFAULT_TIMEOUT",
    "RLIMITS",
    "SOLVERS",
    "WORKER",
    "SolverRun",
    "run_solvers",
    "timed_out",
]

WORKER: Final = Path(__file__).resolve().parent / "_solver_worker.py"
SOLVERS: Final = ("z3", "cvc5")
RLIMITS: Final[Mapping[str, int]] = MappingProxyType({"z3": 10_000_000, "cvc5": 2_000_000})
"""Each solver's deterministic resource limit for one re-check, in its own units
(z3's ``rlimit``; cvc5's ``rlimit-per`` for the ``check-sat``).  This is what decides
whether a solver answers.  Measured on the golden catalogue: the hardest script
(``list_sorted_occurrences``: ``sorted`` and ``occurrences`` over a list) takes z3
about 290,000 units and cvc5 about 360,000 (about 5 s on an idle core, with its
proof); every other one under 15,000.  So the limits leave a margin of 5 to 30 and
still end in well under a minute on an idle core."""
DEFAULT_TIMEOUT: Final = 300.0
"""Wall-clock seconds after which the solver processes of one re-check (they run in
parallel) are killed: a safety net against a hang only, far above what exhausting
``RLIMITS`` takes on an idle core (under 30 s), so that a loaded machine never reaches
it.  A process killed here is reported as ``timeout``, never as an answer."""


@record
class SolverRun:
    """One solver's answer on one script.

    ``result``: ``unsat``, ``sat``, ``unknown`` (``detail`` says why: ``resource
    limit reached (N units)`` when the deterministic limit ran out), ``error`` (the
    solver refused the script; ``detail`` says why), ``missing`` (not installed) or
    ``timeout`` (killed by the wall-clock safety net: operational, not an answer).
    """

    solver: str
    version: str | None
    result: str
    detail: str = ""
    proof: dict[str, str] | None = field(default=None, compare=False, repr=False)

    def describe(self) -> str:
        version = f" {self.version}" if self.version else ""
        tail = f": {self.detail}" if self.detail else ""
        return f"{self.solver}{version} says {self.result}{tail}"


def timed_out(runs: Sequence[SolverRun]) -> list[SolverRun]:
    """The runs the wall-clock safety net killed (operational failures, not answers)."""
    return [r for r in runs if r.result == "timeout"]


def _command(solver: str, proof: bool) -> list[str]:
    # -P: do not put the worker's folder on sys.path (nothing of ours is importable there)
    cmd = [sys.executable, "-P", str(WORKER), solver, "--rlimit", str(RLIMITS[solver])]
    if proof:
        cmd.append("--proof")
    return cmd


def _parse(solver: str, proc_out: str, proc_err: str, code: int) -> SolverRun:
    for line in reversed(proc_out.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError:
            break
        if not isinstance(data, dict):
            break
        proof = data.get("proof")
        return SolverRun(
            solver=solver,
            version=str(data["version"]) if data.get("version") is not None else None,
            result=str(data.get("result", "error")),
            detail=str(data.get("detail") or ""),
            proof=proof if isinstance(proof, dict) else None,
        )
    tail = (proc_err.strip().splitlines() or [f"exit status {code}"])[-1]
    return SolverRun(solver, None, "error", f"the solver process failed: {tail}"[:2000])


def _run_one(solver: str, script: str, proof: bool, timeout: float) -> SolverRun:
    """One solver in one fresh process, killed after ``timeout`` seconds."""
    proc = subprocess.Popen(
        _command(solver, proof),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    try:
        out, err = proc.communicate(script, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return SolverRun(
            solver,
            None,
            "timeout",
            f"no answer within {timeout:g} s of wall-clock time (the safety net, not its "
            "resource limit: the machine is overloaded or the solver hangs)",
        )
    return _parse(solver, out, err, proc.returncode)


def run_solvers(
    script: str,
    solvers: Sequence[str] = SOLVERS,
    *,
    proof_from: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[SolverRun]:
    """Check ``script`` in one fresh process per solver (in parallel), in ``solvers`` order.

    ``proof_from="cvc5"`` also asks cvc5 for a proof of an ``unsat`` answer.  Each
    solver is bounded by its ``RLIMITS`` entry (deterministic).  Each process is fed and
    awaited by a thread of its own, so every solver really gets the script at once and
    the whole re-check takes at most ``timeout`` seconds of wall-clock time (the safety
    net; a process killed there is a ``timeout`` run).
    """
    for solver in solvers:
        if solver not in SOLVERS:
            raise ValueError(f"unknown solver {solver!r}")
    if not solvers:
        return []
    with ThreadPoolExecutor(max_workers=len(solvers)) as pool:
        futures = [
            pool.submit(_run_one, solver, script, proof_from == solver, timeout)
            for solver in solvers
        ]
        return [f.result() for f in futures]
