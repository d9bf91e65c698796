"""What the static posture validator returns: findings and a verdict (data, never exceptions).

A candidate that breaks the posture is not an error of the *request*: it is an answer
about the code.  So a refusal is a returned ``PostureVerdict`` (``accepted`` false, with
every finding), and only a malformed request (empty code, a missing file, an unreadable
policy) raises.  The models are frozen pydantic models so that the verdict can travel
into evidence (``derivative run --json`` carries a ``posture`` object) and so that a JSON
Schema can be published from them like every other document (``derivative.posture/v1``).
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

POSTURE_FORMAT: Final = "derivative.posture/v1"

Strategy: TypeAlias = Literal[
    "ast_structure",
    "import_policy",
    "builtin_policy",
    "attribute_access",
    "name_resolution",
    "reflection",
    "recursive_control",
]

STRATEGIES: tuple[Strategy, ...] = (
    "ast_structure",
    "import_policy",
    "builtin_policy",
    "attribute_access",
    "name_resolution",
    "reflection",
    "recursive_control",
)
"""The seven strategies, in the order findings at one place are listed."""


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Finding(_Model):
    """One thing in the candidate that the policy does not allow, and where it is."""

    strategy: Strategy
    file: str
    line: int = Field(ge=0, description="1-based line (0 when the finding is about the file)")
    column: int = Field(ge=0, description="1-based column in characters (0: the whole file)")
    message: str

    def render(self) -> str:
        """``file:line:col: strategy: message``, the form the CLI prints.

        File names and messages can carry text chosen by the candidate's author (a file
        name, a format field); anything unprintable is escaped so that it cannot drive
        the terminal that shows the report.
        """
        where = f"{_printable(self.file)}:{self.line}:{self.column}"
        return f"{where}: {self.strategy}: {_printable(self.message)}"

    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.file, self.line, self.column, STRATEGIES.index(self.strategy), self.message)


class FileDigest(_Model):
    """A validated file and the SHA-256 of the exact bytes that were validated."""

    path: str
    sha256: str = Field(pattern="^[0-9a-f]{64}$")


class PostureVerdict(_Model):
    """The answer of the validator for one candidate (a file, a package or a source text).

    ``accepted`` is false exactly when the policy enforces refusals and there is at
    least one finding; a reporting policy (``permissive``) accepts everything and still
    lists every finding, so that the OS boundary can be shown to hold on its own.
    ``sha256`` identifies what was validated: the bytes of a single file or source, or
    for a package the SHA-256 of the canonical JSON list of ``files`` (sorted by path).
    """

    format: Literal["derivative.posture/v1"] = POSTURE_FORMAT
    accepted: bool
    enforced: bool = Field(description="whether the policy refuses on findings (else it reports)")
    policy: str = Field(description="the policy's name")
    policy_sha256: str = Field(pattern="^[0-9a-f]{64}$", description="the policy's content digest")
    sha256: str = Field(pattern="^[0-9a-f]{64}$")
    files: tuple[FileDigest, ...]
    findings: tuple[Finding, ...]

    @property
    def refused(self) -> bool:
        return not self.accepted

    def strategies(self) -> set[str]:
        """The strategies that produced at least one finding."""
        return {f.strategy for f in self.findings}

    def by_strategy(self, strategy: str) -> list[Finding]:
        return [f for f in self.findings if f.strategy == strategy]
