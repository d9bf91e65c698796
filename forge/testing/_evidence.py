"""Evidence of a test run: per obligation, how it was exercised and what it showed.

The statuses are those of ``derivative.run/v1`` (docs/cli.md):

- ``failed``: some valid input (or call sequence, or interleaving) broke it; the
  counterexample is the shrunk one, in the obligation's words;
- ``vacuous``: there was nothing to exercise: its own condition (a ``raises``
  condition, the antecedent of a top-level ``implies``) or the owner's preconditions
  were proved impossible by the solver;
- ``unexercised``: no failure, but some trigger that the solver found possible was never
  hit, or no input reached it at all.  It is a failure distinct from ``failed``: the
  evidence does not justify ``passed``;
- ``undecided``: no failure and every possible trigger hit, but some trigger the solver
  could not decide was neither hit by any input nor built directly (``_construct``).
  That gap is the tool's limit, not the candidate's failure: the run is ``unknown``
  (exit 6), never ``passed`` and never ``failed``;
- ``passed``: judged on at least one input, every non-vacuous trigger hit, no failure.

Nothing is ``passed`` by default: the status is computed from counts, never assumed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from derivative._values import value_json

__all__ = [
    "RUN_FORMAT",
    "ObligationEvidence",
    "RunEvidence",
    "Status",
    "TriggerEvidence",
    "json_value",
]

RUN_FORMAT = "derivative.run/v1"
IN_PROCESS_WARNING = (
    "in-process run: the target was imported and called in this interpreter, with no "
    "sandbox and no posture check; this is evidence about code you trust, never "
    "evidence gathered behind a boundary (`derivative run` is the sandboxed way)"
)

Status = Literal["passed", "failed", "unexercised", "undecided", "vacuous"]
TriggerState = Literal["hit", "missed", "vacuous", "unknown"]


def json_value(value: object) -> Any:
    """A value as the JSON outputs write it (``derivative._values.value_json``: numbers by
    the one rule of ``derivative._numbers``, dates ISO, enums by member name, lists as
    arrays); anything that is no value of the language is its ``repr``."""
    return value_json(value, repr)


@dataclass
class TriggerEvidence:
    """One trigger of an obligation and how often valid inputs hit it."""

    id: str
    kind: str
    description: str
    solver: str
    """What the solver said: ``possible``, ``vacuous`` or ``unknown``."""
    hits: int = 0
    required: bool = True
    """A trigger the tests must hit; false for a coverage target (``solver/_mcdc.py``),
    which is reported but never makes an obligation ``unexercised`` or ``undecided``."""

    @property
    def state(self) -> TriggerState:
        if self.hits > 0:
            return "hit"
        if self.solver == "vacuous":
            return "vacuous"
        return "missed" if self.solver == "possible" else "unknown"

    def to_json(self) -> dict[str, Any]:
        return {
            "trigger": self.description,
            "kind": self.kind,
            "solver": self.solver,
            "hits": self.hits,
            "state": self.state,
            "required": self.required,
        }


@dataclass
class ObligationEvidence:
    """Everything observed about one obligation in one run."""

    id: str
    kind: str
    owner: str | None
    file: str = ""
    line: int = 0
    text: str | None = None
    inputs: int = 0
    triggers: list[TriggerEvidence] = field(default_factory=list)
    counterexample: dict[str, Any] | None = None
    message: str | None = None
    """The failure rendered in the obligation's words (or why it is unexercised)."""
    vacuous: bool = False
    """Proved to have nothing to exercise (see the module docstring)."""
    note: str | None = None

    @property
    def status(self) -> Status:
        if self.counterexample is not None:
            return "failed"
        if self.vacuous:
            return "vacuous"
        if self.inputs == 0:
            return "unexercised"
        if any(t.state == "missed" and t.required for t in self.triggers):
            return "unexercised"
        if any(t.state == "unknown" and t.required for t in self.triggers):
            return "undecided"
        return "passed"

    def explain(self) -> str:
        """One paragraph for a person: the failure, or what was missing."""
        if self.message:
            return self.message
        status = self.status
        where = f"{self.file}:{self.line}" if self.file else "?"
        if status == "unexercised":
            if self.inputs == 0:
                why = self.note or "no valid input reached it"
            else:
                missed = [t.description for t in self.triggers
                          if t.state == "missed" and t.required]
                why = "never hit: " + "; ".join(f"`{m}`" for m in missed)
            return f"{self.id} ({where}) unexercised: {why}"
        if status == "undecided":
            gaps = [t.description for t in self.triggers if t.state == "unknown" and t.required]
            return (f"{self.id} ({where}) undecided: the tool could neither solve nor build an "
                    "input hitting " + "; ".join(f"`{g}`" for g in gaps)
                    + f" (the tool's limit, not the candidate's failure; passed on "
                    f"{self.inputs} inputs otherwise)")
        if status == "vacuous":
            return f"{self.id} ({where}) vacuous: {self.note or 'nothing can trigger it'}"
        return f"{self.id} ({where}) passed on {self.inputs} inputs"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "owner": self.owner,
            "file": self.file,
            "line": self.line,
            "status": self.status,
            "inputs": self.inputs,
            "trigger_hits": [t.to_json() for t in self.triggers],
            "counterexample": self.counterexample,
        }


@dataclass
class RunEvidence:
    """A whole run: the obligations' evidence, in the contract's order."""

    spec: Mapping[str, Any]
    target: str
    obligations: list[ObligationEvidence] = field(default_factory=list)
    unknowns: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> Literal["passed", "failed", "unknown"]:
        """``failed`` on any failed or unexercised obligation; else ``unknown`` when some
        obligation is ``undecided`` (the tool's limit); else ``passed``."""
        if not self.obligations or self.failed():
            return "failed"
        if any(o.status == "undecided" for o in self.obligations):
            return "unknown"
        return "passed"

    def nondeterminism_prefix(self) -> str:
        """``"nondeterministic: CALL: ...; "`` when a counterexample shows one call giving
        two outcomes (``_flaky.py``), so that a run's reason names it first; else ``""``."""
        from ._flaky import describe

        for o in self.obligations:
            line = describe(o.counterexample)
            if line is not None:
                return f"nondeterministic: {line}; "
        return ""

    def undefined(self) -> dict[str, list[str]]:
        """What the candidate lacks (a sentence each) and the obligations that therefore
        could not be judged, in the contract's order."""
        groups: dict[str, list[str]] = {}
        for o in self.obligations:
            sentence = (o.counterexample or {}).get("undefined")
            if sentence:
                groups.setdefault(str(sentence), []).append(o.id)
        return groups

    def failure_reason(self) -> str:
        """Why a failed run failed, in one sentence: a nondeterminism first, then what the
        candidate lacks (said once, with how many obligations it leaves unjudged), then the
        other obligations that did not pass."""
        groups = self.undefined()
        unjudged = {i for ids in groups.values() for i in ids}
        parts: list[str] = []
        if groups:
            n = len(unjudged)
            parts.append("; ".join(groups) + f" ({n} obligation{'s' if n != 1 else ''} not "
                         "judged)")
        others = [o.id for o in self.failed() if o.id not in unjudged]
        if others:
            parts.append(f"{len(others)} obligation{'s' if len(others) != 1 else ''} did not "
                         "pass: " + ", ".join(others))
        undecided = [o.id for o in self.obligations if o.status == "undecided"]
        if undecided and not parts:
            parts.append(f"no failure, but the tool could not reach a target of "
                         f"{', '.join(undecided)} (its limit, not the candidate's failure): "
                         "nothing is concluded")
        return self.nondeterminism_prefix() + "; ".join(parts)

    def explanations(self) -> list[str]:
        """A paragraph per obligation that did not pass; what the candidate lacks is said
        once, with the obligations it leaves unjudged, instead of once per obligation."""
        lines: list[str] = []
        groups = self.undefined()
        if len(groups) == 1:
            [(sentence, ids)] = groups.items()
            noun = "obligation" if len(ids) == 1 else "obligations"
            lines.append(f"not judged: {sentence}, so {len(ids)} {noun} could not be judged: "
                         + ", ".join(ids))
        elif groups:
            n = sum(len(ids) for ids in groups.values())
            lines.append(f"not judged: the candidate lacks what the contract names, so {n} "
                         "obligations could not be judged:")
            lines.extend(f"  {sentence}: {', '.join(ids)}" for sentence, ids in groups.items())
        for o in self.obligations:
            if o.status in ("failed", "unexercised", "undecided") and \
                    not (o.counterexample or {}).get("undefined"):
                lines.append(o.explain())
        return lines

    def by_id(self) -> dict[str, ObligationEvidence]:
        return {o.id: o for o in self.obligations}

    def failed(self) -> list[ObligationEvidence]:
        return [o for o in self.obligations if o.status in ("failed", "unexercised")]

    def to_json(self) -> dict[str, Any]:
        """The ``derivative.run/v1`` document of an in-process run (``derivative tests``):
        no sandbox, no posture check and no receipts, and a warning that says so."""
        if not self.obligations:
            reason = "the contract has no function or system to run: nothing was judged"
        elif self.status == "passed":
            reason = "every obligation passed or was proved vacuous"
        else:
            reason = self.failure_reason()
        return {
            "format": RUN_FORMAT,
            "status": self.status,
            "reason": reason,
            "spec": dict(self.spec),
            "candidate": {"path": self.target, "module": None, "sha256": None},
            "sandbox": None,
            "posture": None,
            "obligations": [o.to_json() for o in self.obligations],
            "unknowns": list(self.unknowns),
            "warnings": [IN_PROCESS_WARNING],
            "receipts": [],
            "stats": dict(self.stats),
        }

    def summary(self) -> str:
        """A short human report: counts per status, then every non-passing obligation."""
        counts: dict[str, int] = {}
        for o in self.obligations:
            counts[o.status] = counts.get(o.status, 0) + 1
        head = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        if not self.obligations:
            head = "no function or system to test: nothing was judged"
        lines = [f"{self.spec.get('name', '?')}: {self.status} ({head})"]
        if self.status == "failed" and self.nondeterminism_prefix():
            lines.append(self.nondeterminism_prefix().rstrip("; "))
        lines.extend(self.explanations())
        return "\n".join(lines)


def merge_counts(target: dict[str, int], items: Iterable[str]) -> None:
    for item in items:
        target[item] = target.get(item, 0) + 1
