"""Immutable typed nodes of the requirement language.

A spec is parsed once into these nodes and every back-end reads the same nodes:
the Z3 encoding, the Python evaluator, the SMT-LIB printer and the generated
tests.  They are frozen pydantic models so that they validate, serialise to the
published JSON Schema, and cannot be mutated behind a walker's back.

Each node has a ``kind`` discriminator; walkers dispatch on it (``visit_<kind>``,
see ``_walk.py``) instead of ``isinstance`` ladders.  Source positions
(``line``/``col``) are carried for error messages but excluded from
serialisation, so they never enter the contract's identity.

Structured-English forms (``shall be at least``, ``when C, S``, ``never C``) do
not survive parsing: they mean exactly a core expression and are desugared to it,
so two spellings of one meaning have one identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: per node class: (field, default, default factory, required, tuple-typed) in order
_Plan: TypeAlias = tuple[tuple[str, Any, Any, bool, bool], ...]
_PLANS: dict[type, _Plan] = {}


def _plan(cls: type[Node]) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        hints: dict[str, Any] = {}
        for base in reversed(cls.__mro__):
            hints.update(getattr(base, "__annotations__", {}))
        plan = _PLANS[cls] = tuple(
            (
                name,
                info.default,
                info.default_factory,
                info.is_required(),
                str(hints.get(name, "")).startswith("tuple["),
            )
            for name, info in cls.__pydantic_fields__.items()
        )
    return plan


_DUMPED: dict[type, tuple[str, ...]] = {}


def _dumped(cls: type[Node]) -> tuple[str, ...]:
    names = _DUMPED.get(cls)
    if names is None:
        names = _DUMPED[cls] = tuple(
            n for n, info in cls.__pydantic_fields__.items() if not info.exclude
        )
    return names


def _json_value(value: Any) -> Any:
    if isinstance(value, Node):
        return value.json_data()
    if isinstance(value, tuple | list):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    return value


class Node(BaseModel):
    """Base of every node: frozen, no extra fields.

    Two ways in, for two kinds of source.  Calling the class (``IntLit(value=3)``) is
    the trusted path the parser and every reading use: it fills defaults, turns lists
    into the declared tuples and checks what the static types cannot (operator
    arities), but does not run pydantic's validator, whose schema alone costs more
    than a whole small parse and had to be built at every start.  Data from outside
    (a JSON document, a certificate) goes through ``model_validate``, which validates
    fully; the schema is built then, on first use (``defer_build``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    def __init__(self, /, **data: Any) -> None:
        values: dict[str, Any] = {}
        for name, default, factory, required, is_tuple in _plan(type(self)):
            if name in data:
                value = data.pop(name)
                if is_tuple and type(value) is not tuple:
                    value = tuple(value)
            elif required:
                raise TypeError(f"{type(self).__name__}: missing field {name!r}")
            else:
                value = factory() if factory is not None else default
            values[name] = value
        if data:
            raise TypeError(f"{type(self).__name__}: unknown field {sorted(data)[0]!r}")
        object.__setattr__(self, "__dict__", values)
        object.__setattr__(self, "__pydantic_fields_set__", set(values))
        object.__setattr__(self, "__pydantic_extra__", None)
        object.__setattr__(self, "__pydantic_private__", None)
        self._trusted_check()

    # Tell pydantic this is not a custom ``__init__``: its validator must keep building
    # validated instances itself instead of handing raw input to the trusted path.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    def _trusted_check(self) -> None:
        """What a node must satisfy beyond its static types (overridden where needed)."""

    def json_data(self) -> dict[str, Any]:
        """``model_dump(mode="json")`` without building pydantic's serializer.

        The contract's identity and every generated id hash this form, so ``check``
        computes it on every run; a test holds it equal to ``model_dump``.
        """
        return {name: _json_value(getattr(self, name)) for name in _dumped(type(self))}


class ExprNode(Node):
    """Base of expression nodes: a position kept for messages, not for identity."""

    line: int = Field(default=0, exclude=True, repr=False)
    col: int = Field(default=0, exclude=True, repr=False)


# --------------------------------------------------------------------------- expressions


class IntLit(ExprNode):
    kind: Literal["int"] = "int"
    value: int


class RealLit(ExprNode):
    """A decimal literal; ``value`` is its exact decimal text, normalised (``0.25``)."""

    kind: Literal["real"] = "real"
    value: str


class StrLit(ExprNode):
    """A string literal after escape decoding (raw or not makes no difference)."""

    kind: Literal["str"] = "str"
    value: str


class BoolLit(ExprNode):
    kind: Literal["bool"] = "bool"
    value: bool


class DateLit(ExprNode):
    """``date("YYYY-MM-DD")``; ``value`` is the ISO text, already validated."""

    kind: Literal["date"] = "date"
    value: str


class ListLit(ExprNode):
    kind: Literal["list"] = "list"
    items: tuple[Expr, ...]


class EnumMember(ExprNode):
    """``Enum.member``."""

    kind: Literal["enum_member"] = "enum_member"
    enum: str
    member: str


class Name(ExprNode):
    """A reference to a param, const, function/operation parameter or bound variable."""

    kind: Literal["name"] = "name"
    id: str


class Result(ExprNode):
    """``result``: the return value inside ``ensures`` (and count predicates)."""

    kind: Literal["result"] = "result"


class Unary(ExprNode):
    kind: Literal["unary"] = "unary"
    op: Literal["not", "-"]
    operand: Expr


ArithOp: TypeAlias = Literal["+", "-", "*", "/", "//", "%"]
LogicOp: TypeAlias = Literal["and", "or", "implies", "iff"]

CHAIN_OPS: frozenset[str] = frozenset({"+", "*", "and", "or"})
"""Operators whose runs are one node with any number of operands (see ``BinOp``, ``BoolOp``)."""


class BinOp(ExprNode):
    """Arithmetic, read left to right: ``operands[0] op operands[1] op ...``.

    A run of ``+`` or of ``*`` is one node with all its operands (``a + b + c`` has three),
    so a sum of a thousand terms is as shallow as a sum of two, and every reading walks it
    in a loop.  The run is folded from the left, exactly as Python does, because ``+`` is
    not associative on every type (dates leave the calendar at a step, floats round at each
    step).  ``-``, ``/``, ``//`` and ``%`` have exactly two operands.  Built by
    ``make_binop``, a ``+``/``*`` node never has the same run as its first operand.
    """

    kind: Literal["binop"] = "binop"
    op: ArithOp
    operands: tuple[Expr, ...] = Field(min_length=2)

    @model_validator(mode="after")
    def _arity(self) -> BinOp:
        self._trusted_check()
        return self

    def _trusted_check(self) -> None:
        if len(self.operands) < 2 or (self.op not in CHAIN_OPS and len(self.operands) != 2):
            raise ValueError(f"`{self.op}` takes exactly two operands")


class BoolOp(ExprNode):
    """``and``/``or`` (any number of operands, flat), ``implies`` (right-associative) and
    ``iff`` (left-associative), these two with exactly two operands.

    ``and`` and ``or`` are associative in every reading, short circuits included, so a
    node built by ``make_boolop`` never has an operand with its own operator: ``a and (b
    and c)`` and ``a and b and c`` are one node with three operands, and one identity.
    """

    kind: Literal["boolop"] = "boolop"
    op: LogicOp
    operands: tuple[Expr, ...] = Field(min_length=2)

    @model_validator(mode="after")
    def _arity(self) -> BoolOp:
        self._trusted_check()
        return self

    def _trusted_check(self) -> None:
        if len(self.operands) < 2 or (self.op not in CHAIN_OPS and len(self.operands) != 2):
            raise ValueError(f"`{self.op}` takes exactly two operands")


CompareOp: TypeAlias = Literal["==", "!=", "<", "<=", ">", ">=", "in", "not in"]


class Compare(ExprNode):
    """A comparison chain with Python's meaning: ``a < b <= c`` is ``a < b and b <= c``
    with ``b`` evaluated once.  ``len(operands) == len(ops) + 1``."""

    kind: Literal["compare"] = "compare"
    ops: tuple[CompareOp, ...]
    operands: tuple[Expr, ...]


class Range(ExprNode):
    """``LO..HI``: an inclusive integer range; only the right operand of ``in``/``not in``."""

    kind: Literal["range"] = "range"
    lo: Expr
    hi: Expr


class IfExpr(ExprNode):
    kind: Literal["if"] = "if"
    cond: Expr
    then: Expr
    orelse: Expr


class Quantifier(ExprNode):
    """``forall var in LO..HI: body`` / ``exists ...``: bounded, inclusive, integer."""

    kind: Literal["quant"] = "quant"
    quantifier: Literal["forall", "exists"]
    var: str
    lo: Expr
    hi: Expr
    body: Expr


class Call(ExprNode):
    """A built-in (``len``, ``matches``...) or, in examples, a spec function/operation."""

    kind: Literal["call"] = "call"
    func: str
    args: tuple[Expr, ...]


class Index(ExprNode):
    kind: Literal["index"] = "index"
    base: Expr
    index: Expr


class Generator(ExprNode):
    """``all(body for var in iterable)`` / ``any(...)``."""

    kind: Literal["gen"] = "gen"
    func: Literal["all", "any"]
    body: Expr
    var: str
    iterable: Expr


class Count(ExprNode):
    """``count(OP where PRED, per PARAM)`` inside a system invariant."""

    kind: Literal["count"] = "count"
    op: str
    where: Expr | None = None
    per: str | None = None


Expr: TypeAlias = Annotated[
    (
        IntLit
        | RealLit
        | StrLit
        | BoolLit
        | DateLit
        | ListLit
        | EnumMember
        | Name
        | Result
        | Unary
        | BinOp
        | BoolOp
        | Compare
        | Range
        | IfExpr
        | Quantifier
        | Call
        | Index
        | Generator
        | Count
    ),
    Field(discriminator="kind"),
]


def make_binop(
    op: ArithOp, operands: Sequence[Expr], *, line: int = 0, col: int = 0
) -> BinOp:
    """``operands[0] op operands[1] ...`` in the one canonical form.

    For ``+`` and ``*``, a first operand that is already a run of the same operator is
    extended rather than nested (``(a + b) + c`` means exactly ``a + b + c``); a later
    operand never is, since ``a + (b + c)`` is a different fold.
    """
    first = operands[0]
    if op in CHAIN_OPS and isinstance(first, BinOp) and first.op == op:
        operands = (*first.operands, *operands[1:])
    return BinOp(op=op, operands=tuple(operands), line=line, col=col)


def make_boolop(
    op: LogicOp, operands: Sequence[Expr], *, line: int = 0, col: int = 0
) -> BoolOp:
    """``a op b op ...`` in the one canonical form: ``and``/``or`` operands that are the
    same operator are spliced in (each is already flat, so one level is enough)."""
    if op in CHAIN_OPS:
        flat: list[Expr] = []
        for item in operands:
            if isinstance(item, BoolOp) and item.op == op:
                flat.extend(item.operands)
            else:
                flat.append(item)
        operands = flat
    return BoolOp(op=op, operands=tuple(operands), line=line, col=col)


def conjunction(items: Sequence[Expr]) -> Expr:
    """``items[0] and items[1] and ...``: ``true`` when empty, the item alone when one."""
    if not items:
        return BoolLit(value=True)
    if len(items) == 1:
        return items[0]
    return make_boolop("and", items)


def disjunction(items: Sequence[Expr]) -> Expr:
    """``items[0] or items[1] or ...``: ``false`` when empty, the item alone when one."""
    if not items:
        return BoolLit(value=False)
    if len(items) == 1:
        return items[0]
    return make_boolop("or", items)


# --------------------------------------------------------------------------- type syntax


class TypeNode(Node):
    """Base of written types; positions excluded from identity."""

    line: int = Field(default=0, exclude=True, repr=False)
    col: int = Field(default=0, exclude=True, repr=False)


class IntType(TypeNode):
    """``int`` or ``int in LO..HI`` (bounds are integer literals, negated literals or consts)."""

    kind: Literal["int_type"] = "int_type"
    lo: Expr | None = None
    hi: Expr | None = None


class BoolType(TypeNode):
    kind: Literal["bool_type"] = "bool_type"


class RealType(TypeNode):
    kind: Literal["real_type"] = "real_type"


class StrType(TypeNode):
    """``str`` or ``str matching "RE"`` (a full match)."""

    kind: Literal["str_type"] = "str_type"
    pattern: str | None = None


class DateType(TypeNode):
    kind: Literal["date_type"] = "date_type"


class ListType(TypeNode):
    kind: Literal["list_type"] = "list_type"
    elem: TypeRef


class NamedType(TypeNode):
    """A declared enum, by name (resolved by the type checker)."""

    kind: Literal["named_type"] = "named_type"
    name: str


class NoneType_(TypeNode):
    """``none``: only as an operation's result."""

    kind: Literal["none_type"] = "none_type"


TypeRef: TypeAlias = Annotated[
    IntType | BoolType | RealType | StrType | DateType | ListType | NamedType | NoneType_,
    Field(discriminator="kind"),
]

# --------------------------------------------------------------------------- declarations


class Located(Node):
    """Declarations and obligations know where they were written (not part of identity)."""

    file: str = Field(default="", exclude=True)
    line: int = Field(default=0, exclude=True)
    column: int = Field(default=0, exclude=True)


class EnumDecl(Located):
    kind: Literal["enum"] = "enum"
    name: str
    members: tuple[str, ...]


class ExceptionDecl(Located):
    kind: Literal["exception"] = "exception"
    name: str
    base: str = "Exception"


class ConstDecl(Located):
    kind: Literal["const"] = "const"
    name: str
    type: TypeRef
    value: Expr


class ParamDecl(Located):
    kind: Literal["param"] = "param"
    name: str
    type: TypeRef


class Parameter(Located):
    """A function/operation parameter; ``from_op`` for ``p: T from op``."""

    kind: Literal["parameter"] = "parameter"
    name: str
    type: TypeRef
    from_op: str | None = None


class FunctionDecl(Located):
    """A pure function's signature; its clauses are obligations owned by ``name``."""

    kind: Literal["function"] = "function"
    name: str
    params: tuple[Parameter, ...]
    returns: TypeRef


class OperationDecl(Located):
    """An operation of a system; its clauses are obligations owned by ``System.op``."""

    kind: Literal["operation"] = "operation"
    system: str
    name: str
    params: tuple[Parameter, ...]
    returns: TypeRef

    @property
    def qualname(self) -> str:
        return f"{self.system}.{self.name}"


class SystemDecl(Located):
    """A stateful component; its invariants are obligations owned by the system's name."""

    kind: Literal["system"] = "system"
    name: str
    operations: tuple[OperationDecl, ...]


class BindDecl(Located):
    """``bind NAME to "module:attr"``: where the implementation of NAME lives."""

    kind: Literal["bind"] = "bind"
    name: str
    target: str


Decl: TypeAlias = Annotated[
    EnumDecl | ExceptionDecl | ConstDecl | ParamDecl | FunctionDecl | SystemDecl | BindDecl,
    Field(discriminator="kind"),
]

ObligationKind: TypeAlias = Literal[
    "requirement", "requires", "ensures", "raises", "example", "invariant"
]


class Obligation(Located):
    """One thing the contract demands.

    - ``requirement``: ``expr`` over params and consts; ``owner`` is None.
    - ``requires``/``ensures``: ``owner`` is the function name or ``System.op``.
    - ``raises``: ``expr`` is the ``when`` condition, ``exception`` the required class.
    - ``example``: ``expr`` is ``CALL == VALUE``; or, for ``CALL raises Exc``, ``expr`` is
      the call and ``exception`` is ``Exc``.
    - ``invariant``: ``owner`` is the system's name; ``expr`` usually contains ``count``.

    ``generated_id`` is true when the author wrote no identifier and ``id`` was derived
    from owner, kind and content (never from position).
    """

    id: str
    generated_id: bool = False
    kind: ObligationKind
    owner: str | None = None
    expr: Expr
    exception: str | None = None
    tags: dict[str, str] = Field(default_factory=dict)
    text: str | None = None


class SourceFile(Node):
    """A file of the requirement set and the SHA-256 of its bytes."""

    path: str
    sha256: str


class Contract(Node):
    """A whole requirement set: one or more files forming one namespace.

    ``declarations`` and ``obligations`` are in source order (first file first);
    the identity (``_canon.contract_identity``) does not depend on that order.
    """

    name: str
    version: int
    description: str | None = None
    tolerance: str | None = None
    files: tuple[SourceFile, ...] = ()
    declarations: tuple[Decl, ...] = ()
    obligations: tuple[Obligation, ...] = ()

    # Convenience look-ups; cheap enough to compute on demand.
    def decl(self, name: str) -> Decl | None:
        """The declaration named ``name`` (operations are found by ``System.op``)."""
        for d in self.declarations:
            if d.name == name:
                return d
            if isinstance(d, SystemDecl):
                for op in d.operations:
                    if op.qualname == name:
                        return d
        return None

    def obligations_of(self, owner: str | None) -> tuple[Obligation, ...]:
        return tuple(o for o in self.obligations if o.owner == owner)

    def functions(self) -> tuple[FunctionDecl, ...]:
        return tuple(d for d in self.declarations if isinstance(d, FunctionDecl))

    def systems(self) -> tuple[SystemDecl, ...]:
        return tuple(d for d in self.declarations if isinstance(d, SystemDecl))

    def params(self) -> tuple[ParamDecl, ...]:
        return tuple(d for d in self.declarations if isinstance(d, ParamDecl))

    def consts(self) -> tuple[ConstDecl, ...]:
        return tuple(d for d in self.declarations if isinstance(d, ConstDecl))

    def enums(self) -> tuple[EnumDecl, ...]:
        return tuple(d for d in self.declarations if isinstance(d, EnumDecl))

    def exceptions(self) -> tuple[ExceptionDecl, ...]:
        return tuple(d for d in self.declarations if isinstance(d, ExceptionDecl))


# No ``model_rebuild`` here: with ``defer_build`` the schemas (forward references
# resolved from this module) are built on the first ``model_validate`` or dump.
