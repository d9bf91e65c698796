"""Type checks of declarations: duplicate names, enums, exceptions, written types,
parameters and signatures, ``from op`` and ``bind``."""

from __future__ import annotations

from collections.abc import Sequence

from derivative import _regex
from derivative._ast import (
    BindDecl,
    ConstDecl,
    Contract,
    EnumDecl,
    Expr,
    FunctionDecl,
    IntLit,
    IntType,
    ListType,
    Name,
    NamedType,
    NoneType_,
    OperationDecl,
    ParamDecl,
    Parameter,
    StrType,
    SystemDecl,
    TypeRef,
    Unary,
)
from derivative._builtins import BUILTIN_EXCEPTIONS
from derivative._errors import SpecError
from derivative._typecheck_base import State, did_you_mean
from derivative._typecheck_compound import resolve_compound
from derivative._typecheck_positions import (
    exception_column,
    matching_literal_column,
    regex_column,
    source_pos,
)
from derivative._typeinfo import Signature, TypeInfo
from derivative._types import (
    BOOL,
    DATE,
    INT,
    NONE,
    REAL,
    STR,
    TAny,
    TEnum,
    TInt,
    TList,
    TNone,
    TStr,
    Ty,
    base,
)


class Declarations:
    """The declarations of one contract as the checker resolves them, and its errors.

    The consts (``_typecheck_consts``) and the obligations (``_typecheck_obligations``)
    are checked against what this resolved, through the same ``state``.
    """

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        self.info = TypeInfo(contract)
        self.state = State(self.info)
        self.const_decls: dict[str, ConstDecl] = {}
        self.param_decls: dict[str, ParamDecl] = {}
        self.functions: dict[str, FunctionDecl] = {}
        self.systems: dict[str, SystemDecl] = {}
        self.operations: dict[str, OperationDecl] = {}
        self._requirement_names: dict[str, Ty] | None = None

    def requirement_names(self) -> dict[str, Ty]:
        """What a requirement sees: the params, then the consts (a param shadows a const
        of the same name, itself an error reported elsewhere).  One dict for every
        requirement, made once the params and consts are resolved: a requirement's name
        is found in one lookup, where a view over both took two and a Python call."""
        if self._requirement_names is None:
            self._requirement_names = {**self.info.const_types, **self.info.param_types}
        return self._requirement_names

    def error(
        self, message: str, file: str, line: int, column: int, hint: str | None = None
    ) -> None:
        self.state.error(message, file, line, column, hint)

    def collect(self) -> None:
        seen: dict[str, tuple[str, int, int]] = {}
        for d in self.contract.declarations:
            if isinstance(d, BindDecl):
                continue
            if d.name in seen:
                first = source_pos(*seen[d.name])
                related = [("first declared here", first)] if first is not None else []
                self.state.errors.append(
                    SpecError(
                        f"{d.name!r} is declared twice",
                        source_pos(d.file, d.line, d.column),
                        related=related,
                    )
                )
                continue
            seen[d.name] = (d.file, d.line, d.column)
            if isinstance(d, EnumDecl):
                self.enum(d)
            elif isinstance(d, ConstDecl):
                self.const_decls[d.name] = d
            elif isinstance(d, ParamDecl):
                self.param_decls[d.name] = d
            elif isinstance(d, FunctionDecl):
                self.functions[d.name] = d
            elif isinstance(d, SystemDecl):
                self.systems[d.name] = d
                for op in d.operations:
                    self.operations[op.qualname] = op

    def enum(self, d: EnumDecl) -> None:
        members: list[str] = []
        seen: set[str] = set()  # not the list: one look-up per member would be quadratic
        for m in d.members:
            if m in seen:
                self.error(f"enum {d.name} lists member {m!r} twice", d.file, d.line, d.column)
            else:
                seen.add(m)
                members.append(m)
        if not members:
            self.error(f"enum {d.name} has no members", d.file, d.line, d.column)
        self.info.enums[d.name] = TEnum(d.name, tuple(members))

    # ------------------------------------------------------------------ exceptions

    def exceptions(self) -> None:
        decls = self.contract.exceptions()
        declared = {d.name for d in decls}
        for d in decls:
            if d.name in BUILTIN_EXCEPTIONS:
                self.error(
                    f"{d.name} is a built-in exception and cannot be declared again",
                    d.file,
                    d.line,
                    d.column,
                    "built-in exception names need no declaration",
                )
                continue
            if d.base not in BUILTIN_EXCEPTIONS and d.base not in declared:
                self.error(
                    f"unknown exception base {d.base!r} of {d.name}",
                    d.file,
                    d.line,
                    d.column,
                    did_you_mean(d.base, [*declared, *BUILTIN_EXCEPTIONS])
                    or "a base is a built-in exception or a declared one",
                )
                continue
            self.info.exceptions[d.name] = d.base
        # cycles among declared bases
        for d in decls:
            seen = [d.name]
            cur = self.info.exceptions.get(d.name)
            while cur is not None and cur in self.info.exceptions:
                if cur == d.name:
                    self.error(
                        "exception bases form a cycle: " + " -> ".join([*seen, cur]),
                        d.file,
                        d.line,
                        d.column,
                    )
                    break
                if cur in seen:
                    break
                seen.append(cur)
                cur = self.info.exceptions.get(cur)

    def exception_name(self, name: str, file: str, line: int, column: int) -> None:
        if name in BUILTIN_EXCEPTIONS or name in self.info.exceptions:
            return
        if any(d.name == name for d in self.contract.exceptions()):
            return  # declared, with a bad base: already reported
        column = exception_column(file, line, column, name)
        self.error(
            f"unknown exception {name!r}",
            file,
            line,
            column,
            did_you_mean(name, [*self.info.exceptions, *BUILTIN_EXCEPTIONS])
            or f"declare it: exception {name}(ValueError)",
        )

    # ------------------------------------------------------------------ types

    def resolve(
        self, ref: TypeRef, file: str, fallback: tuple[int, int], allow_none: bool = False
    ) -> Ty:
        line, col = (ref.line, ref.col) if ref.line else fallback
        if isinstance(ref, IntType):
            lo = self.bound(ref.lo, file, (line, col))
            hi = self.bound(ref.hi, file, (line, col))
            if lo is not None and hi is not None and lo > hi:
                self.error(
                    f"empty range: {lo} > {hi}",
                    file,
                    line,
                    col,
                    "write int in LO..HI with LO <= HI",
                )
                return INT
            return TInt(lo, hi)
        if isinstance(ref, StrType):
            if ref.pattern is not None:
                try:
                    _regex.check(ref.pattern)
                except _regex.RegexError as exc:
                    ecol = col
                    lit = matching_literal_column(file, line, col) if ref.line else None
                    if lit is not None:
                        ecol = regex_column(file, line, lit, exc.offset, ref.pattern)
                    self.error(
                        f"unsupported regular expression: {exc.message}",
                        file,
                        line,
                        ecol,
                        "the supported subset is in docs/language.md §7.8",
                    )
                    return STR
            return TStr(ref.pattern)
        if isinstance(ref, ListType):
            return TList(self.resolve(ref.elem, file, (line, col)))
        compound = resolve_compound(
            ref,
            lambda r: self.resolve(r, file, (line, col)),
            lambda message, hint: self.error(message, file, line, col, hint),
        )
        if compound is not None:
            return compound
        if isinstance(ref, NamedType):
            enum = self.info.enums.get(ref.name)
            if enum is not None:
                return enum
            what = "an unknown type"
            if ref.name in BUILTIN_EXCEPTIONS or ref.name in self.info.exceptions:
                what = "an exception, not a type"
            elif ref.name in self.systems or ref.name in self.functions:
                what = "not a type"
            self.error(
                f"{ref.name!r} is {what}",
                file,
                line,
                col,
                did_you_mean(ref.name, [*self.info.enums, "int", "bool", "real", "str", "date"])
                or "types are int, bool, real, str, date, list[T], tuple[T, ...], optional[T], "
                "dict[K, V] and declared enums",
            )
            return TAny()
        if isinstance(ref, NoneType_):
            if not allow_none:
                self.error("`none` is only an operation's result type", file, line, col)
                return TAny()
            return NONE
        if ref.kind == "bool_type":
            return BOOL
        if ref.kind == "real_type":
            return REAL
        if ref.kind == "date_type":
            return DATE
        raise AssertionError(ref.kind)

    def bound(self, expr: Expr | None, file: str, fallback: tuple[int, int]) -> int | None:
        if expr is None:
            return None
        line, col = (expr.line, expr.col) if expr.line else fallback
        if isinstance(expr, IntLit):
            return expr.value
        if isinstance(expr, Unary) and expr.op == "-" and isinstance(expr.operand, IntLit):
            return -expr.operand.value
        if isinstance(expr, Name):
            if expr.id in self.info.const_values:
                v = self.info.const_values[expr.id]
                if isinstance(v, int) and not isinstance(v, bool):
                    return v
                self.error(f"range bound {expr.id} is not an int constant", file, line, col)
                return None
            if expr.id in self.const_decls:
                return None  # its own error was reported
            self.error(
                f"unknown constant {expr.id!r} in a range bound",
                file,
                line,
                col,
                did_you_mean(expr.id, self.const_decls)
                or "range bounds are integer literals or constants",
            )
            return None
        self.error("range bounds must be integer literals or constants", file, line, col)
        return None

    # ------------------------------------------------------------------ params, signatures

    def params(self) -> None:
        shared: dict[Ty, Ty] = {}
        for d in self.param_decls.values():
            ty = self.resolve(d.type, d.file, (d.line, d.column))
            self.info.param_types[d.name] = shared.setdefault(ty, ty)

    def parameters(
        self, params: Sequence[Parameter], owner: str
    ) -> tuple[tuple[str, Ty, str | None], ...]:
        out: list[tuple[str, Ty, str | None]] = []
        seen: set[str] = set()
        for p in params:
            if p.name in seen:
                self.error(
                    f"parameter {p.name!r} of {owner} is declared twice", p.file, p.line, p.column
                )
                continue
            seen.add(p.name)
            if p.name in self.const_decls:
                self.error(
                    f"parameter {p.name!r} of {owner} has the name of a constant",
                    p.file,
                    p.line,
                    p.column,
                    "rename the parameter; it would hide the constant",
                )
            out.append((p.name, self.resolve(p.type, p.file, (p.line, p.column)), p.from_op))
        return tuple(out)

    def signatures(self) -> None:
        for f in self.functions.values():
            params = self.parameters(f.params, f.name)
            returns = self.resolve(f.returns, f.file, (f.line, f.column))
            self.info.signatures[f.name] = Signature(params, returns)
        for s in self.systems.values():
            for op in s.operations:
                params = self.parameters(op.params, op.qualname)
                returns = self.resolve(op.returns, op.file, (op.line, op.column), allow_none=True)
                self.info.signatures[op.qualname] = Signature(params, returns)
        for s in self.systems.values():
            for op in s.operations:
                self.from_ops(s, op)

    def from_ops(self, system: SystemDecl, op: OperationDecl) -> None:
        sig = self.info.signatures[op.qualname]
        for p, (_, ty, from_op) in zip(op.params, sig.params, strict=False):
            if from_op is None:
                continue
            source = self.info.signatures.get(f"{system.name}.{from_op}")
            if source is None:
                self.error(
                    f"`from {from_op}`: system {system.name} has no operation {from_op!r}",
                    p.file,
                    p.line,
                    p.column,
                    did_you_mean(from_op, [o.name for o in system.operations]),
                )
                continue
            if isinstance(source.returns, TNone):
                self.error(
                    f"`from {from_op}`: {system.name}.{from_op} returns none, so it gives "
                    f"no values for {p.name!r}",
                    p.file,
                    p.line,
                    p.column,
                )
            elif not isinstance(ty, TAny) and base(source.returns) != base(ty):
                self.error(
                    f"`from {from_op}`: {p.name!r} is {ty.show()} but {system.name}.{from_op} "
                    f"returns {source.returns.show()}",
                    p.file,
                    p.line,
                    p.column,
                )

    def binds(self) -> None:
        targets = {
            *self.functions,
            *self.systems,
            *self.info.enums,
            *(d.name for d in self.contract.exceptions()),
        }
        for d in self.contract.declarations:
            if not isinstance(d, BindDecl):
                continue
            if d.name not in targets:
                self.error(
                    f"`bind {d.name}`: no function, system, enum or exception {d.name!r}",
                    d.file,
                    d.line,
                    d.column,
                    did_you_mean(d.name, targets),
                )
            module, sep, attr = d.target.partition(":")
            if not sep or not module or not attr:
                self.error(
                    f'`bind {d.name} to {d.target!r}`: the target is "module:attribute"',
                    d.file,
                    d.line,
                    d.column,
                    'e.g. bind is_strong to "accounts.rules:strong"',
                )
