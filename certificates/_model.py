"""The ``derivative.certificate/v1`` document (docs/cli.md) as a pydantic model.

The model states the certificate's shape with its constraints (patterns, literals, the
declarations' discriminator): the verifier validates untrusted JSON against it before
reading it as plain values (``_document``), and the published JSON Schema
(``certificates/schema/certificate.schema.json``) is generated from it.  The builder
writes the plain values of ``_document`` without importing pydantic;
``tests/unit/test_certificate_document.py`` holds the two forms in step.

``sha256`` is the SHA-256 of the canonical JSON (``derivative._canon``) of every other
field, computed over the JSON object exactly as written, so any edit anywhere in
the document (a model value, a row, the script, a date) changes it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any, Final, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from derivative._files import write_atomically
from derivative._numbers import REAL_PATTERN

from ._document import CERTIFICATE_FORMAT, KINDS, payload_sha256

__all__ = [
    "CERTIFICATE_FORMAT",
    "KINDS",
    "SCHEMA_PATH",
    "Certificate",
    "CertificateKind",
    "ConstDeclaration",
    "CoreEntry",
    "Declaration",
    "EnumDeclaration",
    "FarkasEntry",
    "FarkasRow",
    "FunctionDeclaration",
    "FunctionParam",
    "MinimalityEntry",
    "ParamDeclaration",
    "ProducedBy",
    "Proof",
    "SolverCheck",
    "SpecIdentity",
    "certificate_schema",
    "payload_sha256",
    "render_schema",
    "write_schema",
]

CertificateKind: TypeAlias = Literal[
    "inconsistent_requirements",
    "unsatisfiable_precondition",
    "contradicting_example",
    "unrealizable",
]

_HEX64 = r"^[0-9a-f]{64}$"
_RATIONAL = REAL_PATTERN  # exact decimals or "p/q" (derivative._numbers)


class _Doc(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True, strict=True)


class SpecIdentity(_Doc):
    """The requirement set the certificate is about: its name, version and identity."""

    name: str
    version: int
    sha256: str = Field(pattern=_HEX64)


class ParamDeclaration(_Doc):
    """A ``param`` the core uses, with its type in the language (ranges resolved)."""

    kind: Literal["param"] = "param"
    name: str
    type: str


class ConstDeclaration(_Doc):
    """A ``const`` the core uses: its type and value (JSON as docs/cli.md)."""

    kind: Literal["const"] = "const"
    name: str
    type: str
    value: JsonValue


class EnumDeclaration(_Doc):
    """An enum the core uses (in an expression or a type), with its members."""

    kind: Literal["enum"] = "enum"
    name: str
    members: list[str]


class FunctionParam(_Doc):
    name: str
    type: str


class FunctionDeclaration(_Doc):
    """The function (or ``System.op``) a function-level core is about: its signature."""

    kind: Literal["function"] = "function"
    name: str
    params: list[FunctionParam]
    returns: str


Declaration: TypeAlias = Annotated[
    ParamDeclaration | ConstDeclaration | EnumDeclaration | FunctionDeclaration,
    Field(discriminator="kind"),
]


class CoreEntry(_Doc):
    """One conflicting obligation; ``expr`` is what it asserts, in the language's syntax."""

    id: str
    file: str
    line: int
    text: str | None
    tags: dict[str, str]
    expr: str


class MinimalityEntry(_Doc):
    """Values under which every core member except ``without`` holds."""

    without: str
    model: dict[str, JsonValue]


class FarkasRow(_Doc):
    """``sum(coefficients[x] * x) <= bound``; numbers are exact strings as every
    document writes reals: a decimal where one exists (``"-3"``, ``"0.5"``), else ``"p/q"``."""

    coefficients: dict[str, Annotated[str, Field(pattern=_RATIONAL)]]
    bound: str = Field(pattern=_RATIONAL)


class FarkasEntry(_Doc):
    """One row of core member ``id`` and its non-negative multiplier (an exact string)."""

    id: str
    row: FarkasRow
    multiplier: str = Field(pattern=_RATIONAL)


class Proof(_Doc):
    """cvc5's proof of the ``smtlib`` script, for external proof checkers."""

    format: Literal["alethe", "cpc"]
    text: str


class SolverCheck(_Doc):
    """An independent re-check done before the certificate was written."""

    solver: str
    version: str | None
    result: str


class ProducedBy(_Doc):
    tool: Literal["derivative"] = "derivative"
    version: str


class Certificate(_Doc):
    """A proof that a requirement set (or one function of it) is contradictory."""

    format: Literal["derivative.certificate/v1"] = CERTIFICATE_FORMAT
    status: Literal["infeasible_proven"] = "infeasible_proven"
    kind: CertificateKind
    spec: SpecIdentity
    declarations: list[Declaration]
    core: list[CoreEntry]
    witness_input: dict[str, JsonValue] | None
    explanation: str
    smtlib: str
    minimality: list[MinimalityEntry]
    farkas: list[FarkasEntry] | None
    proof: Proof | None
    checks: list[SolverCheck]
    produced_by: ProducedBy
    created_at: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
    sha256: str = Field(pattern=_HEX64)

    def to_json(self) -> dict[str, Any]:
        """The document as a JSON object."""
        return self.model_dump(mode="json")

    def dumps(self) -> str:
        """The document as indented JSON text (what ``write`` puts in a file)."""
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically: a temporary file in the same folder, then a rename; the file
        is readable as the umask allows (``derivative._files.write_atomically``)."""
        return write_atomically(path, self.dumps())


SCHEMA_PATH: Final = Path(__file__).resolve().parent / "schema" / "certificate.schema.json"
"""Where the published JSON Schema of the certificate lives (package data)."""

JSON_SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"


def certificate_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``derivative.certificate/v1``, from the model."""
    schema = Certificate.model_json_schema(mode="validation")
    return {"$schema": JSON_SCHEMA_DIALECT, "$id": "certificate.schema.json", **schema}


def render_schema() -> str:
    """The exact committed text: sorted keys, two-space indent, a final newline."""
    return json.dumps(certificate_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schema(path: Path = SCHEMA_PATH) -> Path:
    """Regenerate the committed schema (after changing the model)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_schema(), encoding="utf-8")
    return path
