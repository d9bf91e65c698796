"""The ``derivative.run/v1`` document (docs/cli.md) as pydantic models.

``derivative run --json`` and ``derivative tests --json`` both print this document.  It
is validated through these models before it is printed, and the published JSON Schema
(``derivative/schemas/derivative.run.v1.schema.json``) is generated from them, so the
schema cannot drift from what the tool writes.

The fields docs/cli.md names are stable: ``format``, ``status``, ``sandbox``
(``backend``, ``isolation``, ``image_id``), ``posture``, ``obligations`` (``id``,
``kind``, ``status``, ``inputs``, ``trigger_hits``, ``counterexample``), ``unknowns``
and ``receipts``.  The rest is added context: why the status is what it is
(``reason``), the contract's identity, the candidate's digest, warnings about how much
the evidence can be trusted, and counts.

A document printed by ``derivative tests`` (in-process, no isolation) has ``sandbox``
and ``posture`` null and no receipts: it is evidence about code the user trusts, never
evidence gathered behind a boundary.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..posture import PostureVerdict
from ..sandbox import RunReceipt

RUN_FORMAT: Final = "derivative.run/v1"

RunStatus = Literal[
    "passed", "failed", "unknown", "infeasible_proven", "sandbox_unavailable",
    "sandbox_policy_violation",
]
ObligationStatus = Literal["passed", "failed", "unexercised", "undecided", "vacuous"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class SpecIdentity(_Model):
    name: str
    version: int = Field(ge=1)
    sha256: str = Field(pattern="^[0-9a-f]{64}$", description="the contract's identity")


class TriggerHits(_Model):
    """One trigger of an obligation and how often the valid inputs hit it."""

    trigger: str
    kind: str
    solver: Literal["possible", "vacuous", "unknown"]
    hits: int = Field(ge=0)
    state: Literal["hit", "missed", "vacuous", "unknown"]
    required: bool = Field(
        default=True, description="a trigger the tests must hit (a boundary, a raises "
        "condition, an antecedent); false for a coverage target (a condition both ways, a "
        "quantifier's deciding position or a tie there, an empty, one- or two-element list "
        "or string), which is reported but never held against the candidate")


class ObligationResult(_Model):
    id: str
    kind: str
    owner: str | None
    file: str
    line: int
    status: ObligationStatus
    inputs: int = Field(ge=0, description="inputs (or call sequences) the obligation was judged on")
    trigger_hits: list[TriggerHits]
    counterexample: dict[str, Any] | None = Field(
        description="the shrunk failing input in the obligation's words, or null"
    )


class SandboxInfo(_Model):
    backend: Literal["process", "docker"]
    isolation: list[str] = Field(description="isolation features verified at the sandbox's start")
    image_id: str | None = Field(description="the Docker image id; null for the process backend")
    restarts: int = Field(ge=0, description="fresh sandboxes started after timeouts and crashes")
    limits: dict[str, float | int] = Field(description="the resource limits the run used")


class CandidateInfo(_Model):
    path: str
    module: str | None
    sha256: str | None = Field(
        description="digest of the staged candidate tree (the receipts name the same one)"
    )


class ReplayMismatch(_Model):
    call: str = Field(description="the replayed call (or a system's last steps)")
    judged: str = Field(description="what it gave in the judged run")
    replayed: str = Field(description="what it gave in the replay run")


class ReplayInfo(_Model):
    """The replay of a passing run's sample in a differently shaped sandbox."""

    calls: int = Field(ge=0, description="function calls made again")
    histories: int = Field(ge=0, description="system instance histories made again")
    mismatches: list[ReplayMismatch] = Field(
        description="answers that differed (any makes the run failed: nondeterministic)")


class CoverageFigures(_Model):
    """What the judged inputs ran of the candidate's own code, measured in the sandbox and
    checked on the host against the source it parsed itself (``_coverage.py``)."""

    lines: int = Field(ge=0, description="the candidate's executable lines (statements)")
    lines_run: int = Field(ge=0, description="of those, the lines some input ran")
    branches: int = Field(ge=0, description="branch outcomes (taken and not taken of each "
                          "if, elif, while and for whose body starts on its own line)")
    branches_run: int = Field(ge=0, description="of those, the outcomes some input took")
    never_run: list[str] = Field(description="FILE:LINE of executable lines no input ran "
                                 "(the first 200)")
    never_run_count: int = Field(ge=0, description="executable lines no input ran, in all")
    branches_missed: list[str] = Field(description="FILE:LINE (taken|not taken) of branch "
                                       "outcomes no input took (the first 200)")
    branches_missed_count: int = Field(ge=0, description="branch outcomes missed, in all")
    lower_bound: bool = Field(description="a sandbox ended before its measurements were "
                              "collected: the figures are at least these")


class InputBudget(_Model):
    """How far input generation went while candidate coverage still grew."""

    examples: int = Field(ge=0, description="generated inputs per round")
    max_examples: int = Field(ge=0, description="generated inputs per function at most")
    rounds: int = Field(ge=0, description="rounds run, summed over functions")
    stopped: dict[str, str] = Field(
        description="functions whose coverage still grew when generation stopped, and "
                    "what stopped it: 'examples' (the budget) or 'time' (the safety net)")


class EvidenceStrength(_Model):
    """How strong the evidence is, in figures (the text report's ``evidence:`` line)."""

    targets: int = Field(ge=0, description="contract targets the solver found possible "
                         "(boundaries, antecedents, raises conditions, count bounds, ...)")
    reached: int = Field(ge=0, description="of those, the targets some judged input hit")
    impossible: int = Field(ge=0, description="targets the solver proved cannot be hit")
    undecided: int = Field(ge=0, description="targets the solver could not decide")
    inputs: int = Field(ge=0, description="judged inputs, summed over obligations")
    counterexamples: int = Field(ge=0, description="obligations with a shrunk counterexample")
    white_box_hints: list[str] = Field(
        description="what the candidate's source (read as text) made the engine vary in "
                    "string inputs: case, space, digits")
    coverage: CoverageFigures | None = Field(
        default=None, description="the candidate's lines and branches the inputs ran; null "
                                  "when not measured or when an answer was forged")
    budget: InputBudget | None = Field(
        default=None, description="input generation while coverage grew; null when "
                                  "coverage was not measured")


class RunDocument(_Model):
    """``derivative.run/v1``."""

    format: Literal["derivative.run/v1"] = RUN_FORMAT
    status: RunStatus
    reason: str = Field(description="why the status is what it is, in one sentence")
    spec: SpecIdentity
    candidate: CandidateInfo | None = None
    sandbox: SandboxInfo | None = Field(
        description="where the candidate ran; null when it never ran in a sandbox"
    )
    posture: PostureVerdict | None = Field(
        description="the static posture verdict; null when the posture was not checked"
    )
    enforcing: bool | None = Field(
        default=None,
        description="whether the evidence was gathered under an enforcing policy (the static "
                    "posture refusing and the runtime guard installed); false marks evidence "
                    "that is only as trustworthy as the code itself; null when nothing ran "
                    "behind a policy")
    obligations: list[ObligationResult]
    unknowns: list[str] = Field(description="solver questions that could not be decided")
    warnings: list[str] = Field(
        default_factory=list, description="what limits the trust the evidence deserves"
    )
    receipts: list[RunReceipt] = Field(description="one per sandbox start, written by the host")
    replay: ReplayInfo | None = Field(
        default=None, description="the replay of a passing run's sample; null when none ran")
    stats: dict[str, Any] = Field(default_factory=dict)
    strength: EvidenceStrength | None = Field(
        default=None, description="the evidence in figures; null when nothing was judged")
