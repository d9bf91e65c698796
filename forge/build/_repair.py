"""Bounded repair: regenerate a failing candidate a few times, judging each one afresh.

The loop never trusts a generator: every candidate it keeps was fully validated by the
caller's ``validate`` (the gates), and the generator only ever hears *what failed*, never
how it is judged.  Its rules (docs/build.md, "Repair"):

- the budget is ``max_repairs`` regenerations after the first attempt;
- each attempt must be materially different from every earlier one (its normalised AST
  hash): an identical candidate is not validated again, and the loop stops as
  ``stalled``, since asking again would only spend the budget on the same answer;
- any other candidate is validated in full, every time;
- the loop stops with ``verified`` on success, ``repeated_failure`` when a failure
  signature (failing obligations and the shape of their counterexamples) comes back,
  ``budget`` when the budget is spent, ``generator_failed`` when the generator produced
  nothing usable, and ``not_repairable`` after ``sandbox_unavailable``,
  ``infeasible_proven`` or ``unknown`` (no candidate can fix the machine, the contract or
  a target the tool cannot reach).  A
  ``sandbox_policy_violation`` is repairable: the generator is told the refusal;
- the best candidate is kept: the best status, then the fewest failing obligations, and
  never one that regressed (fails an obligation the best so far passed).  Repairs start
  from the best, so a regression is never built upon.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from derivative._canon import canonical_json, sha256_json
from derivative._errors import UsageError

from ._generate import Attempt, GenerationRequest, GeneratorFailed, Previous, structural_diff

__all__ = [
    "CODE_ARTIFACT_FORMAT",
    "STOP_REASONS",
    "VALIDATION_STATUSES",
    "RepairResult",
    "StopReason",
    "Validation",
    "failure_signature",
    "repair_loop",
]

CODE_ARTIFACT_FORMAT = "derivative.code-artifact/v1"

VALIDATION_STATUSES: Final = (
    "verified",
    "unknown",
    "validation_failed",
    "sandbox_policy_violation",
    "sandbox_unavailable",
    "infeasible_proven",
)
_RANK: Final = {status: i for i, status in enumerate(VALIDATION_STATUSES)}
_NOT_REPAIRABLE: Final = frozenset({"sandbox_unavailable", "infeasible_proven", "unknown"})

StopReason = Literal[
    "verified", "budget", "stalled", "repeated_failure", "generator_failed", "not_repairable"
]
STOP_REASONS: Final = (
    "verified", "budget", "stalled", "repeated_failure", "generator_failed", "not_repairable",
)  # fmt: skip


# --------------------------------------------------------------------------- validations


def _shape(value: Any, depth: int = 0) -> Any:
    """The type and length of a JSON value, not the value: ``"abc"`` -> ``"str[3]"``."""
    if depth > 8:
        return "..."
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, (str, bytes)):
        return f"{type(value).__name__}[{len(value)}]"
    if isinstance(value, (list, tuple)):
        return [f"list[{len(value)}]", *[_shape(v, depth + 1) for v in value[:8]]]
    if isinstance(value, Mapping):
        return {str(k): _shape(v, depth + 1) for k, v in sorted(value.items(), key=str)}
    return type(value).__name__


def failure_signature(
    failing: Sequence[str] | frozenset[str], counterexamples: Sequence[Mapping[str, Any]] = ()
) -> str:
    """What a failure *is*, apart from the values that showed it: the failing obligation
    ids (sorted) and the shape of each counterexample's input.  Two attempts that fail the
    same way have one signature, however differently their inputs were shrunk."""
    shapes = sorted(
        canonical_json([c.get("obligation", c.get("id")), _shape(c.get("input", {}))]).decode()
        for c in counterexamples
    )
    return sha256_json({"failing": sorted(failing), "shapes": shapes})


@dataclass(frozen=True, kw_only=True)
class Validation:
    """The gates' answer about one attempt (produced by the pipeline, read here).

    ``signature`` defaults to ``status`` plus ``failure_signature(failing, counterexamples)``.
    """

    status: str
    passing: frozenset[str] = frozenset()
    failing: frozenset[str] = frozenset()
    signature: str = ""
    counterexamples: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""

    def __post_init__(self) -> None:
        if self.status not in _RANK:
            raise UsageError(
                f"unknown validation status {self.status!r}; one of {', '.join(_RANK)}"
            )
        if not self.signature:
            sig = failure_signature(self.failing, self.counterexamples)
            object.__setattr__(self, "signature", f"{self.status}:{sig}")

    @property
    def rank(self) -> tuple[int, int, int]:
        """Smaller is better: status, then failing obligations, then passing ones."""
        return (_RANK[self.status], len(self.failing), -len(self.passing))

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "failing": sorted(self.failing),
            "passing": sorted(self.passing),
            "signature": self.signature,
            "message": self.message,
        }


# --------------------------------------------------------------------------- the result


def _file_entries(files: Mapping[str, bytes]) -> list[dict[str, Any]]:
    return [
        {"path": p, "sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}
        for p, b in sorted(files.items())
    ]


def _attempt_json(
    a: Attempt, v: Validation | None, parents: Mapping[int, Attempt]
) -> dict[str, Any]:
    parent = parents.get(a.parent) if a.parent is not None else None
    return {
        "number": a.number,
        "parent": a.parent,
        "origin": a.origin,
        "command": a.command,
        "duration_ms": round(a.duration * 1000),
        "ast_hash": a.ast_hash,
        "files": _file_entries(a.files),
        "diff": None if parent is None else structural_diff(parent.files, a.files),
        "validation": None if v is None else v.to_json(),
    }


@dataclass(frozen=True, kw_only=True)
class RepairResult:
    """Every validated attempt, the best one, and why the loop stopped."""

    attempts: list[tuple[Attempt, Validation]]
    best: int | None
    """Index into ``attempts`` of the best candidate (None if nothing was validated)."""
    stop_reason: StopReason
    message: str = ""
    stalled: Attempt | None = None
    """The candidate identical to an earlier one, which was not validated again."""
    max_repairs: int = 0

    @property
    def best_attempt(self) -> tuple[Attempt, Validation] | None:
        return None if self.best is None else self.attempts[self.best]

    @property
    def status(self) -> str | None:
        """The best candidate's validation status (None when nothing was validated)."""
        best = self.best_attempt
        return None if best is None else best[1].status

    @property
    def last(self) -> tuple[Attempt, Validation] | None:
        return self.attempts[-1] if self.attempts else None

    def code_artifact(self) -> dict[str, Any]:
        """The ``code_artifact.json`` document: every attempt, where it came from, its
        files with their SHA-256, the structural diff against its parent and its verdict."""
        by_number = {a.number: a for a, _ in self.attempts}
        best = self.best_attempt
        stalled = None
        if self.stalled is not None:
            same = next(a.number for a, _ in self.attempts if a.ast_hash == self.stalled.ast_hash)
            stalled = _attempt_json(self.stalled, None, by_number) | {"identical_to": same}
        return {
            "format": CODE_ARTIFACT_FORMAT,
            "stop_reason": self.stop_reason,
            "message": self.message,
            "max_repairs": self.max_repairs,
            "best": None if best is None else best[0].number,
            "status": self.status,
            "attempts": [_attempt_json(a, v, by_number) for a, v in self.attempts],
            "stalled": stalled,
        }


# --------------------------------------------------------------------------- the loop


@dataclass
class _Loop:
    max_repairs: int
    request: GenerationRequest | None
    attempts: list[tuple[Attempt, Validation]] = field(default_factory=list)
    best: int | None = None
    guarded: frozenset[str] = frozenset()
    """Obligations some accepted best passed: a new best may fail none of them."""

    def record(self, attempt: Attempt, v: Validation) -> None:
        self.attempts.append((attempt, v))
        kept = None if self.best is None else self.attempts[self.best][1]
        if kept is None or (v.rank < kept.rank and not (v.failing & self.guarded)):
            self.best = len(self.attempts) - 1
            self.guarded |= v.passing

    def stop_after(self, v: Validation) -> tuple[StopReason, str] | None:
        n = len(self.attempts)
        if v.status == "verified":
            return "verified", f"attempt {n} verified"
        if v.status in _NOT_REPAIRABLE:
            return "not_repairable", f"attempt {n}: {v.status}; no candidate can repair that"
        earlier = [a.number for a, w in self.attempts[:-1] if w.signature == v.signature]
        if earlier:
            return "repeated_failure", f"attempt {n} failed as attempt {earlier[0]} did"
        if n - 1 >= self.max_repairs:
            return "budget", f"{self.max_repairs} repair(s) spent; attempt {n} still fails"
        return None

    def next_request(self) -> GenerationRequest | None:
        """A request to repair the best attempt so far, or None without a generator."""
        assert self.best is not None
        base = self.request or next((a.request for a, _ in self.attempts if a.request), None)
        if base is None:
            return None
        best, v = self.attempts[self.best]
        message = v.message
        latest, lv = self.attempts[-1]
        if latest is not best:
            lost = sorted(lv.failing & self.guarded)
            why = f"it fails {', '.join(lost)}, which attempt {best.number} passed" if lost \
                else f"it was no better ({lv.status}, {len(lv.failing)} failing)"
            message += f"\n(attempt {latest.number} was not kept: {why})"
        previous = Previous(
            files=best.texts(), failing=tuple(sorted(v.failing)),
            counterexamples=tuple(v.counterexamples), message=message.strip(),
        )  # fmt: skip
        return base.next(attempt=len(self.attempts) + 1, previous=previous)

    def result(
        self, reason: StopReason, message: str, stalled: Attempt | None = None
    ) -> RepairResult:
        return RepairResult(
            attempts=list(self.attempts), best=self.best, stop_reason=reason, message=message,
            stalled=stalled, max_repairs=self.max_repairs,
        )  # fmt: skip


def repair_loop(
    *,
    first: Callable[[], Attempt],
    regenerate: Callable[[GenerationRequest], Attempt],
    validate: Callable[[Attempt], Validation],
    max_repairs: int = 3,
    request: GenerationRequest | None = None,
) -> RepairResult:
    """Validate ``first()``; while it fails and the rules allow, ask ``regenerate`` for a
    repair of the best attempt so far and validate that (module docstring).

    ``request`` is the request the first attempt answered, the base of every repair
    request; without it the first attempt's own ``request`` is used (generators set it),
    and an attempt that came from no generator stops as ``not_repairable``.
    """
    if max_repairs < 0:
        raise UsageError("--max-repairs must be 0 or more")
    loop = _Loop(max_repairs=max_repairs, request=request)
    try:
        attempt = first().renumbered(1, None)
    except GeneratorFailed as exc:
        return loop.result("generator_failed", exc.message)
    seen: dict[str, int] = {}
    while True:
        seen.setdefault(attempt.ast_hash, attempt.number)
        v = validate(attempt)
        loop.record(attempt, v)
        stop = loop.stop_after(v)
        if stop is not None:
            return loop.result(*stop)
        req = loop.next_request()
        if req is None:
            return loop.result("not_repairable", "the candidate came from no generator")
        parent = loop.attempts[loop.best or 0][0].number
        try:
            attempt = regenerate(req).renumbered(req.attempt, parent)
        except GeneratorFailed as exc:
            return loop.result("generator_failed", f"attempt {req.attempt}: {exc.message}")
        if attempt.ast_hash in seen:
            same = seen[attempt.ast_hash]
            msg = f"attempt {attempt.number} is the same candidate as attempt {same}"
            return loop.result("stalled", msg, stalled=attempt)
