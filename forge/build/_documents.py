"""The documents of a build folder, as models where they are published.

``outcome.json`` (``derivative.outcome/v1``) is what ``derivative build --json`` prints and
what every consumer of a build reads first; it is validated through ``OutcomeDocument``
before it is written, and the published JSON Schema is generated from the model. The
other files of the folder are plain JSON whose fields are listed in ``docs/build.md``;
each names the SHA-256 of the files it depends on (``depends_on``).
"""

from __future__ import annotations

import typing
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from derivative._errors import exit_code_for

OUTCOME_FORMAT: Final = "derivative.outcome/v1"

OutcomeStatus = Literal[
    "verified",
    "validation_failed",
    "unknown",
    "infeasible_proven",
    "sandbox_unavailable",
    "sandbox_policy_violation",
]
"""The statuses a build can end in (the ledger adds ``interrupted``)."""

EXIT_CODES: Final[dict[str, int]] = {
    status: int(exit_code_for(status)) for status in typing.get_args(OutcomeStatus)
}
"""One exit code per build status, read from the one table (``derivative._errors``)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class OutcomeSpec(_Model):
    name: str
    version: int = Field(ge=1)
    sha256: str = Field(pattern="^[0-9a-f]{64}$", description="the contract's identity")


class OutcomePackage(_Model):
    path: str
    sha256: str = Field(pattern="^[0-9a-f]{64}$")


class GateResult(_Model):
    gate: str
    status: Literal["passed", "failed", "refused", "unavailable", "skipped", "reported"]
    detail: str


class OutcomeDocument(_Model):
    """``derivative.outcome/v1``: the one status of a build and the evidence behind it."""

    format: Literal["derivative.outcome/v1"] = OUTCOME_FORMAT
    status: OutcomeStatus
    reason: str = Field(description="why the status is what it is, in one sentence")
    build_id: str
    spec: OutcomeSpec
    candidate_sha256: str | None = Field(
        description="SHA-256 of the candidate judged last (the best attempt); null if none"
    )
    started_at: str
    finished_at: str
    evidence: dict[str, str] = Field(description="every file of the build folder -> SHA-256")
    gates: list[GateResult] = Field(description="the gates of the final attempt, in order")
    attempts: int = Field(ge=0, description="candidates produced and judged")
    stop_reason: str | None = Field(description="why the repair loop stopped; null without one")
    package: OutcomePackage | None = Field(description="the package of a verified build")
    policy: str | None = None
    enforced: bool | None = Field(default=None, description="whether the policy enforces")
    warnings: list[str] = Field(default_factory=list)


def outcome_json(doc: OutcomeDocument) -> dict[str, Any]:
    return doc.model_dump(mode="json")
