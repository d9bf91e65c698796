"""A candidate's nondeterminism is a verdict, never an internal error.

Hypothesis replays a failing input before it reports it (and while it shrinks).  When the
replay does not fail the same way it raises ``hypothesis.errors.Flaky``: ``FlakyFailure``
("falsified on the first call but did not on a subsequent one", an exception group that
holds the first failure) or, in a stateful test, ``FlakyStrategyDefinition`` (the calls
drew different data, because results that feed later calls differed).  A contract judges
a function of its inputs, so the same call giving two outcomes is the candidate's
behaviour: evidence like any other.  The obligation that the first observation failed is
failed, with the reason ``nondeterministic`` and both observations, what the first call
gave and what the same call gave when made again.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from ._oracle import Failure

__all__ = ["REASON", "describe", "first_failure", "nondeterministic"]

REASON = "nondeterministic"
"""The ``reason`` of a counterexample that shows two outcomes of one call."""

_E = TypeVar("_E", bound=BaseException)


def first_failure(exc: BaseException, kind: type[_E], depth: int = 0) -> _E | None:
    """The first ``kind`` in ``exc`` or, for an exception group, in its members (nested);
    None when there is none (then the flakiness is not the candidate's to answer for)."""
    if isinstance(exc, kind):
        return exc
    if depth > 8:
        return None
    for sub in getattr(exc, "exceptions", None) or ():
        if isinstance(sub, BaseException):
            found = first_failure(sub, kind, depth + 1)
            if found is not None:
                return found
    return None


def nondeterministic(f: Failure, replay: str | None) -> tuple[Failure, dict[str, Any]]:
    """The first observation ``f`` restated as a nondeterminism failure, and the fields its
    counterexample adds: ``reason``, ``first`` (what the first call gave) and ``replay``
    (what the same call gave when made again; ``replay`` None: it did not fail then)."""
    again = replay if replay is not None else "did not fail"
    came_back = (f"nondeterministic: the first call {f.came_back}, the same call made again "
                 f"{again}")
    required = (f"the same outcome every time the same call is made, and that outcome "
                f"meeting the contract; the first call's outcome broke it: {f.required}")
    extra = {"reason": REASON, "first": f.came_back, "replay": again}
    return dataclasses.replace(f, came_back=came_back, required=required), extra


def describe(counterexample: dict[str, Any] | None) -> str | None:
    """One line for a run's ``reason`` when ``counterexample`` shows nondeterminism: the
    call and both observations (its ``got`` without the ``nondeterministic:`` prefix)."""
    if not counterexample or counterexample.get("reason") != REASON:
        return None
    text = str(counterexample.get("got", "")).removeprefix(f"{REASON}: ")
    call = counterexample.get("call")
    return f"{call}: {text}" if call else text
