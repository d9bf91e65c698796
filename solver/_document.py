"""The ``derivative.check/v1`` document as pydantic models (docs/cli.md).

``render_json`` validates every document through ``CheckDocument`` before it is
printed, and the published JSON Schema is generated from the same model, so the
output and the schema cannot drift apart.  Field names are the documented ones;
the extra fields (a core's ``kind``, ``members`` ...) are additions, never renames.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from ._result import Method


class _Doc(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class CallDoc(_Doc):
    """A function's or operation's witness call."""

    input: dict[str, JsonValue] = Field(description="parameter -> value")
    result: JsonValue = Field(description="the result (null for `none` or when it raises)")
    raises: str | None = Field(
        default=None, description="the exception, when every valid input must raise"
    )
    method: Method | None = Field(
        default=None,
        description="how realizability (every valid input has an acceptable result) was "
        "decided (docs/cli.md)",
    )


class WitnessDoc(_Doc):
    params: dict[str, JsonValue]
    functions: dict[str, CallDoc]
    systems: dict[str, dict[str, CallDoc]]


class MemberDoc(_Doc):
    """A core member: where it is written and what it says."""

    id: str
    kind: str
    owner: str | None
    file: str
    line: int
    text: str | None
    tags: dict[str, str]
    expr: str = Field(description="the clause in the language's own syntax")


class CoreDoc(_Doc):
    ids: list[str]
    explanation: str
    kind: Literal[
        "inconsistent_requirements",
        "unsatisfiable_precondition",
        "contradicting_example",
        "unrealizable",
    ]
    subject: str = Field(description="`requirements`, a function or `System.op`")
    members: list[MemberDoc]
    witness_input: dict[str, JsonValue] | None
    minimal: bool = Field(description="false only if Z3 could not decide a deletion step")
    method: Method | None = Field(
        default=None,
        description="for `unrealizable`: how the input without an acceptable result was found",
    )


class CorrectionDoc(_Doc):
    ids: list[str] = Field(description="relax (drop) these to restore consistency")
    subject: str


class WarningDoc(_Doc):
    kind: Literal["vacuous", "latent_conflict", "ambiguous_raises", "redundant", "unused_param"]
    ids: list[str]
    message: str
    input: dict[str, JsonValue] | None


class LimitDoc(_Doc):
    name: Literal["rlimit", "cvc5 rlimit", "max cores", "enumeration work"] = Field(
        description="which deterministic limit was reached"
    )
    value: int = Field(description="the limit in force (for rlimit: after scaling)")
    flag: str = Field(description="the command-line flag that raises it")
    detail: str = Field(description="how the value came about")


class UnknownDoc(_Doc):
    question: str
    ids: list[str]
    reason: str
    hard: list[str] = Field(
        default_factory=list,
        description="for an undecided realizability question: the clauses that make it "
        "hard (a quantifier, a text-integer conversion or non-linear arithmetic)",
    )
    limits: list[LimitDoc] = Field(
        description="the limits the question ran into; empty when the reason is not a "
        "limit (an expression that cannot be encoded, incomplete quantifier instantiation)"
    )


class TimedDoc(_Doc):
    """One ``timed`` block's answer up to ``depth`` steps (docs/language.md §14)."""

    component: str
    depth: int
    status: Literal["no_conflict", "infeasible_proven", "unknown"]
    kind: Literal["inconsistent", "unrealizable", "unrealizable_causal"] | None = Field(
        description="inconsistent: no run of depth steps meets the core; unrealizable: no "
        "outputs answer the input trace shown; unrealizable_causal: outputs would have to "
        "know later inputs"
    )
    explanation: str
    core: list[str]
    trace: list[dict[str, JsonValue]] = Field(
        description="one object per step: signal -> value (the longest run a conflict "
        "allows, the input trace no outputs answer, or a run that breaks nothing)"
    )


class CheckDocument(_Doc):
    """What ``derivative check --json`` prints.

    With ``timed`` blocks, ``status`` covers both parts: ``infeasible_proven`` when either
    has a proven conflict, ``unknown`` when either is undecided, and otherwise
    ``no_conflict_up_to_depth``, never ``feasible``: a timed answer is bounded."""

    format: Literal["derivative.check/v1"]
    status: Literal["feasible", "infeasible_proven", "unknown", "no_conflict_up_to_depth"]
    witness: WitnessDoc | None
    certificate: dict[str, Any] | None = Field(
        description="the derivative.certificate/v1 document of the first core, if built"
    )
    cores: list[CoreDoc]
    corrections: list[CorrectionDoc]
    warnings: list[WarningDoc]
    unknowns: list[UnknownDoc]
    reason: str
    timed: list[TimedDoc] | None = Field(
        default=None, description="the timed blocks' answers, when the set has any"
    )

    @model_serializer(mode="wrap")
    def _leave_out_absent_timed(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A set without timed blocks prints the document it printed before they existed,
        so a dump of a validated document equals the document it came from."""
        data = handler(self)
        if isinstance(data, dict) and data.get("timed", ...) is None:
            del data["timed"]
        return data
