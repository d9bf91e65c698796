"""What a certificate records about its own checking, held to what the checker derives.

A certificate carries ``checks`` (the solver re-checks run before it was written) and
may carry cvc5's ``proof``.  Neither is evidence: anyone can write ``"result": "unsat"``
or paste a proof and recompute the hash.  So the verifier never counts them toward
validity; it re-runs the solvers itself, exactly as the builder ran them (the same
script, resource limits and options, cvc5 asked for its proof), and holds the records to
what it derives:

- a recorded check must name a known solver, once, with an answer a solver gives;
  recording ``sat`` rejects the certificate, whatever the solvers say here;
- where the same solver in the same version runs here and answers, the recorded answer
  must be its answer (the limits count work, not time, so the answer is the same on
  every machine); anything else is only noted as not re-derived;
- a proof is never checked by a proof checker here.  Where cvc5 in the recorded version
  runs here, the proof must be the one it gives for the script (``reproduced``);
  otherwise it is reported ``unchecked``.  Either way it does not count toward validity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from ._document import Proof, SolverCheck
from ._solvers import SOLVERS, SolverRun

__all__ = ["ANSWERS", "RECORDED_RESULTS", "Records", "check_records"]

ANSWERS: Final = ("unsat", "sat", "unknown")
"""The answers a solver gives about a script (the ones a re-run must reproduce)."""

RECORDED_RESULTS: Final = (*ANSWERS, "error", "missing")
"""What the builder may record for a solver (a ``timeout`` stops it instead)."""


@dataclass
class Records:
    """The verdict on the records: reasons to reject, notes, and the proof's status
    (``absent``, ``unchecked`` or ``reproduced``)."""

    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    proof: str = "absent"


def _shown(check: SolverCheck) -> str:
    version = f" {check.version}" if check.version else ""
    return f"{check.solver}{version} answering {check.result}"


def _recorded(recorded: Sequence[SolverCheck], runs: Sequence[SolverRun], out: Records) -> None:
    here = {run.solver: run for run in runs}
    seen: set[str] = set()
    for check in recorded:
        if check.solver not in SOLVERS:
            out.reasons.append(
                f"the certificate records a check by {check.solver!r}, which is not one of "
                f"the solvers ({', '.join(SOLVERS)})"
            )
            continue
        if check.solver in seen:
            out.reasons.append(f"the certificate records {check.solver} twice")
            continue
        seen.add(check.solver)
        if check.result not in RECORDED_RESULTS:
            out.reasons.append(
                f"the certificate records {check.solver} answering {check.result!r}, which "
                f"is not an answer ({', '.join(RECORDED_RESULTS)})"
            )
            continue
        if check.result == "sat":
            out.reasons.append(f"the certificate records {check.solver} answering sat")
            continue
        run = here.get(check.solver)
        if run is None or check.result not in ANSWERS:
            out.notes.append(f"recorded: {_shown(check)}; not re-derived here")
        elif run.result not in ANSWERS or run.version is None:
            out.notes.append(f"recorded: {_shown(check)}; not re-derived ({run.describe()})")
        elif run.version != check.version:
            out.notes.append(
                f"recorded: {_shown(check)}; not re-derived ({run.solver} {run.version} "
                "runs here)"
            )
        elif run.result != check.result:
            out.reasons.append(
                f"the certificate records {_shown(check)}, but {run.solver} {run.version} "
                f"answers {run.result} for the same script"
            )


def _proof(proof: Proof | None, recorded: Sequence[SolverCheck], runs: Sequence[SolverRun],
           out: Records) -> None:
    if proof is None:
        return
    out.proof = "unchecked"
    run = next((r for r in runs if r.solver == "cvc5"), None)
    version = next((c.version for c in recorded if c.solver == "cvc5"), None)
    what = f"the {proof.format} proof"
    tail = "no proof checker runs here, so it does not count toward validity"
    if run is None or run.proof is None or version is None or run.version != version:
        out.notes.append(f"{what} was not checked: {tail}")
        return
    if (run.proof.get("format"), run.proof.get("text")) != (proof.format, proof.text):
        out.reasons.append(
            f"{what} is not the one cvc5 {run.version} gives for the script"
        )
        return
    out.proof = "reproduced"
    out.notes.append(f"{what} is the one cvc5 {run.version} gives for the script; {tail}")


def check_records(
    recorded: Sequence[SolverCheck], proof: Proof | None, runs: Sequence[SolverRun]
) -> Records:
    """Hold the recorded ``checks`` and ``proof`` to the solver ``runs`` made here."""
    out = Records()
    _recorded(recorded, runs, out)
    _proof(proof, recorded, runs, out)
    return out
