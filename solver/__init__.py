"""The solver layer: obligations → Z3, consistency, realizability, cores, warnings.

``check(contract, info, options)`` answers one of ``feasible`` (with a witness),
``infeasible_proven`` (with minimal cores, the first certified) or ``unknown``
(with the solver's reasons), never a guess (LANGUAGE.md §6).  ``render_text``,
``render_json`` and ``render_sarif`` turn the answer into the CLI's outputs.
"""

from __future__ import annotations

from derivative.solver._check import check
from derivative.solver._report import render_json, render_sarif, render_text, value_json
from derivative.solver._result import (
    CallWitness,
    CheckOptions,
    CheckResult,
    Core,
    Correction,
    Finding,
    Unknown,
    Witness,
)

__all__ = [
    "CallWitness",
    "CheckOptions",
    "CheckResult",
    "Core",
    "Correction",
    "Finding",
    "Unknown",
    "Witness",
    "check",
    "render_json",
    "render_sarif",
    "render_text",
    "value_json",
]
