"""Re-checking an SMT-LIB script in fresh solver processes.

A certificate is only checked independently if the solver that re-checks it shares
nothing with the process that found the conflict: no Z3 context, no cached
declarations, no global options.  So every check starts a new Python process
running ``_solver_worker.py`` (standard library plus one solver) with the script on
standard input.  z3 and cvc5 run in parallel, so a check costs one process start,
not two, and at most ``timeout`` seconds.  A solver whose Python package is missing
is reported as ``missing``, never silently skipped; one that hangs is killed and
reported as ``timeout``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

__all__ = ["DEFAULT_TIMEOUT", "SOLVERS", "WORKER", "SolverRun", "run_solvers"]

WORKER: Final = Path(__file__).resolve().parent / "_solver_worker.py"
SOLVERS: Final = ("z3", "cvc5")
DEFAULT_TIMEOUT: Final = 30.0
"""Seconds the solver processes of one re-check may take, together (they run in
parallel), before they are killed.  Cores are small: every genuine certificate of
the golden catalogue is re-checked in about a second.  A solver that runs out of
time is recorded as ``timeout``; it neither confirms nor refutes the core."""


@dataclass(frozen=True)
class SolverRun:
    """One solver's answer on one script.

    ``result``: ``unsat``, ``sat``, ``unknown``, ``error`` (the solver refused the
    script; ``detail`` says why), ``missing`` (not installed) or ``timeout``.
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


def _command(solver: str, proof: bool) -> list[str]:
    # -P: do not put the worker's folder on sys.path (nothing of ours is importable there)
    cmd = [sys.executable, "-P", str(WORKER), solver]
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
        return SolverRun(solver, None, "timeout", f"no answer within {timeout:g} s")
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
    process is fed and awaited by a thread of its own, so every solver really gets
    the script at once and the whole re-check takes at most ``timeout`` seconds.
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
