"""The solver layer: obligations → Z3, consistency, realizability, cores, warnings.

``check(contract, info, options)`` answers one of ``feasible`` (with a witness),
``infeasible_proven`` (with minimal cores, the first certified) or ``unknown``
(with the solver's reasons), never a guess (docs/language.md §9).  ``render_text``,
``render_json`` and ``render_sarif`` turn the answer into the CLI's outputs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from derivative._values import value_json

from ._boundary import Plan, clear_cache, plan_for, space_for
from ._certify import certify
from ._check import check
from ._limits import scaled_rlimit

if TYPE_CHECKING:
    from ._document import CheckDocument
    from ._game import GameAnswer, play
from ._report import render_json, render_text
from ._result import (
    CallWitness,
    CheckOptions,
    CheckResult,
    Core,
    Correction,
    Finding,
    Limit,
    Unknown,
    Witness,
)
from ._sarif import render_sarif
from ._triggers import Trigger

__all__ = [
    "CallWitness",
    "CheckDocument",
    "CheckOptions",
    "CheckResult",
    "Core",
    "Correction",
    "Finding",
    "GameAnswer",
    "Limit",
    "Plan",
    "Trigger",
    "Unknown",
    "Witness",
    "certify",
    "check",
    "clear_cache",
    "plan_for",
    "play",
    "render_json",
    "render_sarif",
    "render_text",
    "scaled_rlimit",
    "space_for",
    "value_json",
]


def __getattr__(name: str) -> Any:
    """``CheckDocument`` (pydantic) and the game of timed sets are imported on first use:
    an untimed check needs neither."""
    if name == "CheckDocument":
        from ._document import CheckDocument

        return CheckDocument
    if name in ("GameAnswer", "play"):  # only sets with timed blocks play games
        from . import _game

        return getattr(_game, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
