"""The ``derivative.certificate/v1`` document as plain value classes (no pydantic).

Writing a certificate and checking one read the same document, so both work on these
classes; pydantic (``_model``) is imported only to *validate* a document that came from
outside (``verify``) and to generate the published schema.  Importing pydantic and
building its models cost about 85 ms, more than the rest of a small ``check`` that finds
a conflict (every ``check --json`` of an infeasible set writes a certificate), so the
builder never touches it.  The classes have the model's names, fields and field order;
``tests/unit/test_certificate_document.py`` holds the two in step: the same fields, and
every certificate the builder writes validates against the model and dumps to the same
JSON.

``sha256`` is the SHA-256 of the canonical JSON (``derivative._canon``) of every other
field, computed over the JSON object exactly as written, so any edit anywhere in the
document (a model value, a row, the script, a date) changes it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, TypeAlias

from derivative._canon import sha256_json
from derivative._files import write_atomically
from derivative._record import record, record_fields

__all__ = [
    "CERTIFICATE_FORMAT",
    "KINDS",
    "Certificate",
    "CertificateDocument",
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
    "document_json",
    "from_json",
    "payload_sha256",
]

CERTIFICATE_FORMAT: Final = "derivative.certificate/v1"

KINDS: Final[tuple[str, ...]] = (
    "inconsistent_requirements",
    "unsatisfiable_precondition",
    "contradicting_example",
    "unrealizable",
)


@record(kw_only=True)
class SpecIdentity:
    """The requirement set the certificate is about: its name, version and identity."""

    name: str
    version: int
    sha256: str


@record(kw_only=True)
class ParamDeclaration:
    """A ``param`` the core uses, with its type in the language (ranges resolved)."""

    kind: str = "param"
    name: str
    type: str


@record(kw_only=True)
class ConstDeclaration:
    """A ``const`` the core uses: its type and value (JSON as docs/cli.md)."""

    kind: str = "const"
    name: str
    type: str
    value: Any


@record(kw_only=True)
class EnumDeclaration:
    """An enum the core uses (in an expression or a type), with its members."""

    kind: str = "enum"
    name: str
    members: list[str]


@record(kw_only=True)
class FunctionParam:
    name: str
    type: str


@record(kw_only=True)
class FunctionDeclaration:
    """The function (or ``System.op``) a function-level core is about: its signature."""

    kind: str = "function"
    name: str
    params: list[FunctionParam]
    returns: str


Declaration: TypeAlias = ParamDeclaration | ConstDeclaration | EnumDeclaration | FunctionDeclaration


@record(kw_only=True)
class CoreEntry:
    """One conflicting obligation; ``expr`` is what it asserts, in the language's syntax."""

    id: str
    file: str
    line: int
    text: str | None
    tags: dict[str, str]
    expr: str


@record(kw_only=True)
class MinimalityEntry:
    """Values under which every core member except ``without`` holds."""

    without: str
    model: dict[str, Any]


@record(kw_only=True)
class FarkasRow:
    """``sum(coefficients[x] * x) <= bound``; numbers are exact strings (``"-3"``,
    ``"0.5"``, ``"p/q"``) as every document writes reals."""

    coefficients: dict[str, str]
    bound: str


@record(kw_only=True)
class FarkasEntry:
    """One row of core member ``id`` and its non-negative multiplier (an exact string)."""

    id: str
    row: FarkasRow
    multiplier: str


@record(kw_only=True)
class Proof:
    """cvc5's proof of the ``smtlib`` script, for external proof checkers."""

    format: str
    text: str


@record(kw_only=True)
class SolverCheck:
    """An independent re-check done before the certificate was written."""

    solver: str
    version: str | None
    result: str


@record(kw_only=True)
class ProducedBy:
    tool: str = "derivative"
    version: str


@record(kw_only=True)
class Certificate:
    """A proof that a requirement set (or one function of it) is contradictory."""

    format: str = CERTIFICATE_FORMAT
    status: str = "infeasible_proven"
    kind: str
    spec: SpecIdentity
    declarations: list[Declaration]
    core: list[CoreEntry]
    witness_input: dict[str, Any] | None
    explanation: str
    smtlib: str
    minimality: list[MinimalityEntry]
    farkas: list[FarkasEntry] | None
    proof: Proof | None
    checks: list[SolverCheck]
    produced_by: ProducedBy
    created_at: str
    sha256: str

    def to_json(self) -> dict[str, Any]:
        """The document as a JSON object."""
        out: dict[str, Any] = document_json(self)
        return out

    def dumps(self) -> str:
        """The document as indented JSON text (what ``write`` puts in a file)."""
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically: a temporary file in the same folder, then a rename; the file
        is readable as the umask allows (``derivative._files.write_atomically``)."""
        return write_atomically(path, self.dumps())


CertificateDocument = Certificate
"""The public name of the plain certificate (``derivative.certificates.Certificate`` is
the validating pydantic model)."""


def document_json(value: Any) -> Any:
    """A document value as JSON data: records as objects with their fields in order,
    lists and tuples as arrays, objects copied (what ``model_dump(mode="json")`` gives)."""
    if hasattr(type(value), "_record_plan"):
        return {name: document_json(getattr(value, name)) for name in record_fields(value)}
    if isinstance(value, list | tuple):
        return [document_json(v) for v in value]
    if isinstance(value, dict):
        return {k: document_json(v) for k, v in value.items()}
    return value


_DECLARATIONS: Final[dict[str, type[Any]]] = {
    "param": ParamDeclaration,
    "const": ConstDeclaration,
    "enum": EnumDeclaration,
    "function": FunctionDeclaration,
}


def _declaration(d: Mapping[str, Any]) -> Declaration:
    if d["kind"] == "function":
        params = [FunctionParam(**p) for p in d["params"]]
        return FunctionDeclaration(name=d["name"], params=params, returns=d["returns"])
    made: Declaration = _DECLARATIONS[d["kind"]](**d)
    return made


def from_json(d: Mapping[str, Any]) -> Certificate:
    """The document ``d`` (already validated against the model: ``_model``) as plain
    values."""
    farkas = d["farkas"]
    proof = d["proof"]
    return Certificate(
        format=d["format"],
        status=d["status"],
        kind=d["kind"],
        spec=SpecIdentity(**d["spec"]),
        declarations=[_declaration(x) for x in d["declarations"]],
        core=[CoreEntry(**e) for e in d["core"]],
        witness_input=d["witness_input"],
        explanation=d["explanation"],
        smtlib=d["smtlib"],
        minimality=[MinimalityEntry(**m) for m in d["minimality"]],
        farkas=None if farkas is None else [
            FarkasEntry(id=f["id"], row=FarkasRow(**f["row"]), multiplier=f["multiplier"])
            for f in farkas
        ],
        proof=None if proof is None else Proof(**proof),
        checks=[SolverCheck(**c) for c in d["checks"]],
        produced_by=ProducedBy(**d["produced_by"]),
        created_at=d["created_at"],
        sha256=d["sha256"],
    )


def payload_sha256(document: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every field of ``document`` except ``sha256``."""
    return sha256_json({k: v for k, v in document.items() if k != "sha256"})
