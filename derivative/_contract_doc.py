"""The ``derivative.contract/v1`` document's published models (pydantic).

``derivative parse --json`` writes the document as plain data (``api.contract_json``);
these models state its schema (``derivative/schemas/derivative.contract.v1.schema.json``)
and validate it (``api.contract_document``).  They live apart from ``api`` so that no
command pays for importing pydantic unless it validates a document or writes a schema;
``api`` gives them under their old names on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from derivative._ast import ObligationKind
from derivative._ast_models import expr_model

if TYPE_CHECKING:
    from derivative._ast import Expr
else:
    Expr = expr_model()  # the syntax tree's published model (each obligation's ``ast``)


class _Doc(BaseModel):
    """Base of the published document models: immutable, and no field outside the schema."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


SourceFileName: TypeAlias = Annotated[
    str, Field(description="the source file, as given or joined to the including file")
]
SourceLine: TypeAlias = Annotated[int, Field(ge=0, description="1-based line (0 when unknown)")]
SourceColumn: TypeAlias = Annotated[int, Field(ge=0, description="1-based column (0 when unknown)")]


class SpecRef(_Doc):
    """The requirement set's name, version and identity."""

    name: str
    version: int = Field(ge=1)
    sha256: str = Field(pattern="^[0-9a-f]{64}$", description="the identity (docs/language.md §11)")
    description: str | None
    tolerance: str | None = Field(description="the relative tolerance for reals, if set")


class FileRef(_Doc):
    path: str
    sha256: str = Field(pattern="^[0-9a-f]{64}$", description="SHA-256 of the file's bytes")


class ParameterDoc(_Doc):
    name: str
    type: str = Field(description="the written type, in the language's syntax")
    from_op: str | None = Field(description="`p: T from op`: the operation whose results p takes")


class EnumDoc(_Doc):
    kind: Literal["enum"]
    name: str
    members: list[str]
    file: SourceFileName
    line: SourceLine
    column: SourceColumn


class ExceptionDoc(_Doc):
    kind: Literal["exception"]
    name: str
    base: str
    file: SourceFileName
    line: SourceLine
    column: SourceColumn


class ConstDoc(_Doc):
    kind: Literal["const"]
    name: str
    type: str
    value: str = Field(description="the defining expression, in the language's syntax")
    file: SourceFileName
    line: SourceLine
    column: SourceColumn


class ParamDoc(_Doc):
    kind: Literal["param"]
    name: str
    type: str
    file: SourceFileName
    line: SourceLine
    column: SourceColumn


class FunctionDoc(_Doc):
    kind: Literal["function"]
    name: str
    params: list[ParameterDoc]
    returns: str
    file: SourceFileName
    line: SourceLine
    column: SourceColumn


class OperationDoc(_Doc):
    name: str
    qualname: str = Field(description="`System.op`, the owner of the operation's clauses")
    params: list[ParameterDoc]
    returns: str
    file: SourceFileName
    line: SourceLine
    column: SourceColumn


class SystemDoc(_Doc):
    kind: Literal["system"]
    name: str
    operations: list[OperationDoc]
    file: SourceFileName
    line: SourceLine
    column: SourceColumn


class BindDoc(_Doc):
    kind: Literal["bind"]
    name: str
    target: str
    file: SourceFileName
    line: SourceLine
    column: SourceColumn


DeclarationDoc: TypeAlias = Annotated[
    EnumDoc | ExceptionDoc | ConstDoc | ParamDoc | FunctionDoc | SystemDoc | BindDoc,
    Field(discriminator="kind"),
]


class ObligationDoc(_Doc):
    id: str
    generated_id: bool = Field(description="true when the id was derived from the content")
    kind: ObligationKind
    owner: str | None = Field(description="function, `System.op` or system; null if global")
    expr: str = Field(description="the obligation's expression in the language's own syntax")
    exception: str | None = Field(description="for raises and `example: CALL raises E`")
    text: str | None
    tags: dict[str, str]
    ast: Expr = Field(description="the same expression as a typed syntax tree")
    file: SourceFileName
    line: SourceLine
    column: SourceColumn


class ContractDocument(_Doc):
    """``derivative.contract/v1``: what ``derivative parse --json`` prints."""

    format: Literal["derivative.contract/v1"]
    spec: SpecRef
    files: list[FileRef]
    declarations: list[DeclarationDoc]
    obligations: list[ObligationDoc]


