"""Immutable typed nodes of the requirement language.

A spec is parsed once into these nodes and every back-end reads the same nodes:
the Z3 encoding, the Python evaluator, the SMT-LIB printer and the generated
tests.  They are immutable plain classes (``Node``), so that no walker can change
them behind another's back; their published form (JSON, JSON Schema, validation of
data from outside) is mirrored by pydantic models in ``derivative._ast_models``,
which only documents and schemas load.

Each node has a ``kind`` discriminator; walkers dispatch on it (``visit_<kind>``,
see ``_walk.py``) instead of ``isinstance`` ladders.  Source positions
(``line``/``col``) are carried for error messages but excluded from
serialisation, so they never enter the contract's identity.

Structured-English forms (``shall be at least``, ``when C, S``, ``never C``) do
not survive parsing: they mean exactly a core expression and are desugared to it,
so two spellings of one meaning have one identity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeAlias

if TYPE_CHECKING:
    from typing import Self

_MISSING: Any = object()


class FieldSpec:
    """What a node class says about one field (the part of pydantic's ``FieldInfo`` the
    nodes use): its default, whether it is left out of the published form (positions),
    shown by ``repr``, and constraints the published schema states (``min_length``)."""

    __slots__ = ("annotation", "default", "default_factory", "exclude", "min_length", "repr")

    def __init__(
        self,
        default: Any = _MISSING,
        *,
        default_factory: Callable[[], Any] | None = None,
        exclude: bool = False,
        repr: bool = True,
        min_length: int | None = None,
    ) -> None:
        self.default = default
        self.default_factory = default_factory
        self.exclude = exclude
        self.repr = repr
        self.min_length = min_length
        self.annotation = ""

    def is_required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None


def Field(
    default: Any = _MISSING,
    *,
    default_factory: Callable[[], Any] | None = None,
    exclude: bool = False,
    repr: bool = True,
    min_length: int | None = None,
    discriminator: str | None = None,
) -> Any:
    """A field's declaration in a node class body (``line: int = Field(default=0, ...)``).

    ``discriminator`` marks a union alias (``Annotated[A | B, Field(discriminator=...)]``).
    """
    if discriminator is not None:
        return Discriminator(discriminator)
    return FieldSpec(
        default, default_factory=default_factory, exclude=exclude, repr=repr, min_length=min_length
    )


class Discriminator:
    """Marks a union of node classes told apart by one field (``kind``)."""

    __slots__ = ("field",)

    def __init__(self, field: str) -> None:
        self.field = field


def _collect(cls: type) -> dict[str, FieldSpec]:
    """The fields of a node class, base classes' first, in the order they were written."""
    fields: dict[str, FieldSpec] = {}
    for klass in reversed(cls.__mro__):
        own = klass.__dict__.get("__annotations__", {})  # noqa: RUF063 - no inspect at start-up
        for name, annotation in own.items():
            if str(annotation).startswith("ClassVar"):
                continue
            value = klass.__dict__.get(name, _MISSING)
            spec = value if isinstance(value, FieldSpec) else FieldSpec(value)
            spec.annotation = str(annotation)
            fields[name] = spec
    return fields


def _json_value(value: Any) -> Any:
    if isinstance(value, Node):
        return value.json_data()
    if isinstance(value, tuple | list):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    return value


class Node:
    """Base of every node: immutable, keyword-built, compared and hashed by value.

    Plain classes, not pydantic models: importing pydantic and building the schemas of
    ~45 classes cost more than a whole small ``derivative parse``, at every start.  What
    the published documents need from pydantic lives in ``derivative._ast_models``,
    loaded only when something is validated from outside or a schema is written:
    ``Node.model_validate`` (a certificate, a document: full validation, then the same
    plain nodes) and ``model_json_schema`` go through it.

    Calling a class is the trusted path the parser and every reading use: it fills
    defaults, turns lists into the declared tuples and checks what the static types
    cannot (operator arities).  The small pydantic-like surface (``model_dump``,
    ``model_copy``, ``model_fields``) keeps the callers and tests that use it working.
    """

    model_fields: ClassVar[dict[str, FieldSpec]] = {}
    _plan: ClassVar[tuple[tuple[str, Any, Any, bool, bool], ...]] = ()
    _dumped: ClassVar[tuple[str, ...]] = ()
    _shown: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = _collect(cls)
        cls.model_fields = fields
        cls._plan = tuple(
            (
                name,
                spec.default,
                spec.default_factory,
                spec.is_required(),
                spec.annotation.startswith("tuple["),
            )
            for name, spec in fields.items()
        )
        cls._dumped = tuple(n for n, spec in fields.items() if not spec.exclude)
        cls._shown = tuple(n for n, spec in fields.items() if spec.repr)

    def __init__(self, /, **data: Any) -> None:
        values: dict[str, Any] = {}
        for name, default, factory, required, is_tuple in self._plan:
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
        self._trusted_check()

    def _trusted_check(self) -> None:
        """What a node must satisfy beyond its static types (overridden where needed)."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), *self.__dict__.values()))

    def __repr__(self) -> str:
        args = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._shown)
        return f"{type(self).__name__}({args})"

    def __str__(self) -> str:
        return " ".join(f"{n}={getattr(self, n)!r}" for n in self._shown)

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        """``(field, value)`` pairs, positions included (as pydantic models iterate)."""
        return iter(self.__dict__.items())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), dict(self.__dict__)))

    # ------------------------------------------------------------------ the published form

    def json_data(self) -> dict[str, Any]:
        """The published JSON form: every field but positions, tuples as lists.

        What the contract's identity and generated ids hash, and what
        ``derivative._ast_models`` validates back (a test holds the two in step).
        """
        return {name: _json_value(getattr(self, name)) for name in self._dumped}

    def model_dump(self, *, mode: str = "json", **_: Any) -> dict[str, Any]:
        """``json_data`` under pydantic's name (both modes give JSON-shaped data)."""
        return self.json_data()

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A copy with some fields replaced (not re-checked, as pydantic's is not)."""
        copy = object.__new__(type(self))
        object.__setattr__(copy, "__dict__", {**self.__dict__, **(update or {})})
        return copy

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        """Full validation of data from outside (JSON-shaped), then plain nodes."""
        from derivative._ast_models import validate

        node: Self = validate(cls, data)
        return node

    @classmethod
    def model_json_schema(cls, **kwargs: Any) -> dict[str, Any]:
        """The JSON Schema of this node's published form."""
        from derivative._ast_models import mirror

        schema: dict[str, Any] = mirror(cls).model_json_schema(**kwargs)
        return schema


def _rebuild(cls: type[Node], values: dict[str, Any]) -> Node:
    node = object.__new__(cls)
    object.__setattr__(node, "__dict__", values)
    return node


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


class TupleLit(ExprNode):
    """``(a, b)`` / ``(a,)``: a tuple of one or more items (docs/language.md §6.5)."""

    kind: Literal["tuple"] = "tuple"
    items: tuple[Expr, ...] = Field(min_length=1)

    def _trusted_check(self) -> None:
        if not self.items:
            raise ValueError("a tuple has at least one item")


class NoneLit(ExprNode):
    """``none``: the absent value of every ``optional[T]`` (docs/language.md §6.6)."""

    kind: Literal["none"] = "none"


class DictLit(ExprNode):
    """``{k1: v1, k2: v2}`` / ``{}``: ``keys[i]`` maps to ``values[i]``; a later entry
    with an equal key replaces an earlier one, as in Python (docs/language.md §6.7)."""

    kind: Literal["dict"] = "dict"
    keys: tuple[Expr, ...]
    values: tuple[Expr, ...]

    def _trusted_check(self) -> None:
        if len(self.keys) != len(self.values):
            raise ValueError("a dict literal has one value per key")


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


ArithOp: TypeAlias = Literal["+", "-", "*", "/", "//", "%", "**"]
LogicOp: TypeAlias = Literal["and", "or", "implies", "iff"]

CHAIN_OPS: frozenset[str] = frozenset({"+", "*", "and", "or"})
"""Operators whose runs are one node with any number of operands (see ``BinOp``, ``BoolOp``)."""


class BinOp(ExprNode):
    """Arithmetic, read left to right: ``operands[0] op operands[1] op ...``.

    A run of ``+`` or of ``*`` is one node with all its operands (``a + b + c`` has three),
    so a sum of a thousand terms is as shallow as a sum of two, and every reading walks it
    in a loop.  The run is folded from the left, exactly as Python does, because ``+`` is
    not associative on every type (dates leave the calendar at a step, floats round at each
    step).  ``-``, ``/``, ``//``, ``%`` and ``**`` have exactly two operands
    (``**`` groups to the right: ``a ** b ** c`` is ``a ** (b ** c)``).  Built by
    ``make_binop``, a ``+``/``*`` node never has the same run as its first operand.
    """

    kind: Literal["binop"] = "binop"
    op: ArithOp
    operands: tuple[Expr, ...] = Field(min_length=2)

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


class Slice(ExprNode):
    """``base[lo:hi]`` of a string or list, with Python's meaning (no step).

    A missing bound is None (``xs[:hi]``, ``xs[lo:]``).  Negative bounds count from the
    end and bounds beyond either end are clamped, as in Python: a slice is never
    undefined when its parts are defined (docs/language.md §7.5).
    """

    kind: Literal["slice"] = "slice"
    base: Expr
    lo: Expr | None = None
    hi: Expr | None = None


class ListComp(ExprNode):
    """``[body for var in iterable]`` / ``[body for var in iterable if cond]``.

    Python's list comprehension over a list: for each element in order, ``cond`` (when
    given) and then, where it holds, ``body``; any undefined part makes the whole
    undefined.  ``count(P for x in xs)`` is parsed as ``len([x for x in xs if P])``.
    """

    kind: Literal["listcomp"] = "listcomp"
    body: Expr
    var: str
    iterable: Expr
    cond: Expr | None = None


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
        | TupleLit
        | NoneLit
        | DictLit
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
        | Slice
        | ListComp
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


class TupleType(TypeNode):
    """``tuple[T1, ..., Tn]`` (n >= 1)."""

    kind: Literal["tuple_type"] = "tuple_type"
    items: tuple[TypeRef, ...] = Field(min_length=1)


class OptionalType(TypeNode):
    """``optional[T]``: a value of ``T`` or ``none``."""

    kind: Literal["optional_type"] = "optional_type"
    elem: TypeRef


class DictType(TypeNode):
    """``dict[K, V]``: finitely many keys of ``K`` (int or str), each with a value of ``V``."""

    kind: Literal["dict_type"] = "dict_type"
    key: TypeRef
    value: TypeRef


class NamedType(TypeNode):
    """A declared enum, by name (resolved by the type checker)."""

    kind: Literal["named_type"] = "named_type"
    name: str


class NoneType_(TypeNode):
    """``none``: only as an operation's result."""

    kind: Literal["none_type"] = "none_type"


TypeRef: TypeAlias = Annotated[
    IntType
    | BoolType
    | RealType
    | StrType
    | DateType
    | ListType
    | TupleType
    | OptionalType
    | DictType
    | NamedType
    | NoneType_,
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


