"""Reading a certificate's core back with the language's own parser and type checker.

A certificate must be readable on its own: its ``declarations`` say what every name
the core uses is, and its core ``expr``s are in the language's syntax.  To check
both with the real front end (not a second, private parser), the reader writes a
minimal spec — the declarations, then every core expression as a clause with a
fresh identifier — parses it with ``derivative.grammar.parse_text`` and type-checks
it with ``derivative._typecheck.check``.  What comes back (the parsed expressions
and the resolved types) is what both the builder and the verifier encode, so they
encode the same thing.

Global cores become ``requirement`` clauses over ``param``s; function-level cores
become clauses of one ``function`` (or ``system`` operation): ``example`` for an
``f(..) == V`` member, ``ensures`` for everything else (``ensures`` sees the
parameters and ``result``, which is all a member may use).  Nothing of the text is
trusted: names must be identifiers, no declaration or expression may contain a line
break (which could smuggle extra clauses in), and the parsed spec must contain
exactly the clauses written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from derivative._ast import Call, Compare, Contract, Expr, Name
from derivative._errors import DerivativeError, SpecError, SpecErrors
from derivative._printer import quote, to_source
from derivative._types import (
    TBool,
    TDate,
    TDict,
    TEnum,
    TInt,
    TList,
    TNone,
    TOptional,
    TReal,
    TStr,
    TTuple,
    Ty,
)
from derivative._values import Value

from ._document import (
    ConstDeclaration,
    Declaration,
    EnumDeclaration,
    FunctionDeclaration,
    ParamDeclaration,
)
from ._jsonvalue import ValueError_, decode, literal
from ._smtlib import CoreScope

if TYPE_CHECKING:
    from derivative._typecheck import TypeInfo

__all__ = ["MAX_EXPR_DEPTH", "READER_FILE", "Reading", "ReadingError", "read_core", "type_text"]

READER_FILE: Final = "<certificate>"
_IDENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_QUALIFIED: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?", re.ASCII)


class ReadingError(DerivativeError):
    """The certificate's declarations or expressions do not read as the language."""

    def __init__(self, reasons: Sequence[str]) -> None:
        self.reasons = list(reasons)
        super().__init__("; ".join(self.reasons))


def type_text(ty: Ty) -> str:
    """A resolved type written in the language (ranges with their resolved bounds)."""
    if isinstance(ty, TInt):
        if ty.lo is None and ty.hi is None:
            return "int"
        if ty.lo is None or ty.hi is None:
            raise ValueError(f"a half-open range {ty.show()} has no spelling")
        return f"int in {ty.lo}..{ty.hi}"
    if isinstance(ty, TBool):
        return "bool"
    if isinstance(ty, TReal):
        return "real"
    if isinstance(ty, TStr):
        return "str" if ty.pattern is None else f"str matching {quote(ty.pattern)}"
    if isinstance(ty, TDate):
        return "date"
    if isinstance(ty, TList):
        return f"list[{type_text(ty.elem)}]"
    if isinstance(ty, TEnum):
        return ty.name
    if isinstance(ty, TNone):
        return "none"
    if isinstance(ty, TTuple):
        return "tuple[" + ", ".join(type_text(t) for t in ty.items) + "]"
    if isinstance(ty, TOptional):
        return f"optional[{type_text(ty.elem)}]"
    if isinstance(ty, TDict):
        return f"dict[{type_text(ty.key)}, {type_text(ty.value)}]"
    raise ValueError(f"the type {ty.show()} has no spelling")


@dataclass
class Reading:
    """A core read back: parsed expressions, resolved types, and the encoding scope."""

    ids: list[str]
    exprs: list[Expr]
    subject: str | None
    """The function or ``System.op`` of a function-level core; None for a global core."""
    variables: dict[str, Ty]
    """Free names a core member may use: params, or the subject's parameters."""
    result: Ty | None
    const_types: dict[str, Ty]
    const_values: dict[str, Value]
    enums: dict[str, TEnum]
    exceptions: dict[str, str] = field(default_factory=dict)
    witness: dict[str, Value] | None = None
    contract: Contract | None = None
    kind: str = ""

    @property
    def call_name(self) -> str | None:
        """How the subject is called in an example (the operation's own name)."""
        return None if self.subject is None else self.subject.split(".")[-1]

    @property
    def fixed(self) -> dict[str, Value]:
        """The inputs the script fixes: an ``unrealizable`` witness, nothing otherwise.

        A ``contradicting_example`` keeps its inputs free: its example member pins
        them (see ``_formula``), so the witness is reported, not assumed.
        """
        if self.kind == "unrealizable" and self.witness is not None:
            return dict(self.witness)
        return {}

    def scope(self) -> CoreScope:
        """The printer's view of these names (an ``unrealizable`` witness fixed)."""
        return CoreScope(
            variables=self.variables,
            fixed=self.fixed,
            consts={n: (self.const_types[n], self.const_values[n]) for n in self.const_types},
            enums=self.enums,
            result=self.result,
            function=self.call_name,
            inputs=tuple(self.variables) if self.subject is not None else (),
        )

    def var_type(self, name: str) -> Ty | None:
        """The type of a model or witness entry (a variable or ``result``)."""
        if name == "result":
            return self.result
        return self.variables.get(name)


def _is_example(expr: Expr, call_name: str | None) -> bool:
    return (
        call_name is not None
        and isinstance(expr, Compare)
        and expr.ops == ("==",)
        and isinstance(expr.operands[0], Call)
        and expr.operands[0].func == call_name
    )


def _check_names(declarations: Sequence[Declaration], reasons: list[str]) -> None:
    seen: set[str] = set()
    for d in declarations:
        pattern = _QUALIFIED if isinstance(d, FunctionDeclaration) else _IDENT
        if not pattern.fullmatch(d.name):
            reasons.append(f"declaration {d.name!r}: not a name of the language")
        if d.name in seen:
            reasons.append(f"declaration {d.name!r} appears twice")
        seen.add(d.name)
        texts: list[str] = []
        if isinstance(d, (ParamDeclaration, ConstDeclaration)):
            texts.append(d.type)
        if isinstance(d, EnumDeclaration):
            texts.extend(d.members)
            for m in d.members:
                if not _IDENT.fullmatch(m):
                    reasons.append(f"enum {d.name}: {m!r} is not a member name")
        if isinstance(d, FunctionDeclaration):
            texts.append(d.returns)
            for p in d.params:
                texts.append(p.type)
                if not _IDENT.fullmatch(p.name):
                    reasons.append(f"function {d.name}: {p.name!r} is not a parameter name")
        if any("\n" in t or "\r" in t for t in texts):
            reasons.append(f"declaration {d.name!r}: a type spans several lines")


def _spec_text(
    kind: str,
    declarations: Sequence[Declaration],
    members: Sequence[tuple[str, str]],
    const_sources: Mapping[str, str] | None,
    reasons: list[str],
) -> tuple[str, dict[int, str], list[str], FunctionDeclaration | None]:
    """The minimal spec, a map from its line numbers to core ids, and the clause ids.

    With ``const_sources=None`` (a probe, to resolve the constants' types before their
    values can be written as literals) constants are declared as params and no
    clause is written.
    """
    enums = [d for d in declarations if isinstance(d, EnumDeclaration)]
    consts = [d for d in declarations if isinstance(d, ConstDeclaration)]
    params = [d for d in declarations if isinstance(d, ParamDeclaration)]
    functions = [d for d in declarations if isinstance(d, FunctionDeclaration)]
    function = functions[0] if functions else None
    lines = ["spec certificate_core version 1"]
    for e in enums:
        lines.append(f"enum {e.name} {{ {', '.join(e.members)} }}")
    for c in consts:
        if const_sources is None:
            lines.append(f"param {c.name}: {c.type}")
        else:
            lines.append(f"const {c.name}: {c.type} = {const_sources[c.name]}")
    for p in params:
        lines.append(f"param {p.name}: {p.type}")
    line_of: dict[int, str] = {}
    if const_sources is None:
        return "\n".join(lines) + "\n", line_of, [], function
    if len(functions) > 1:
        reasons.append("a certificate's core is about one function at most")
    if kind == "inconsistent_requirements" and functions:
        reasons.append("an inconsistent_requirements core is about params, not a function")
    if kind != "inconsistent_requirements" and function is None:
        reasons.append(f"a {kind} core needs the declaration of its function")
    if function is not None and params:
        reasons.append("a function-level core cannot use params")
    taken = {d.name for d in declarations}
    prefix = "c"
    while any(n.startswith(prefix) and n[len(prefix) :].isdigit() for n in taken):
        prefix += "_"
    clause_ids = [f"{prefix}{i + 1}" for i in range(len(members))]
    call_name = None if function is None else function.name.split(".")[-1]
    indent = ""
    if function is not None:
        signature = ", ".join(f"{p.name}: {p.type}" for p in function.params)
        if "." in function.name:
            system, op = function.name.split(".")
            lines.append(f"system {system}")
            lines.append(f"    operation {op}({signature}) -> {function.returns}")
            indent = "        "
        else:
            lines.append(f"function {function.name}({signature}) -> {function.returns}")
            indent = "    "
    for (ident, expr_text), clause in zip(members, clause_ids, strict=True):
        if "\n" in expr_text or "\r" in expr_text:
            reasons.append(f"core member {ident}: the expression spans several lines")
            expr_text = "false"
        line_of[len(lines) + 1] = ident
        if function is None:
            lines.append(f"requirement {clause}: {expr_text}")
        elif _looks_like_example(expr_text, call_name):
            lines.append(f"{indent}example {clause}: {expr_text}")
        else:
            lines.append(f"{indent}ensures {clause}: {expr_text}")
    return "\n".join(lines) + "\n", line_of, clause_ids, function


def _looks_like_example(expr_text: str, call_name: str | None) -> bool:
    return (
        call_name is not None
        and re.match(rf"\s*{re.escape(call_name)}\s*\(", expr_text) is not None
    )


def _spec_errors(err: SpecError | SpecErrors, line_of: Mapping[int, str]) -> list[str]:
    errors = err.errors if isinstance(err, SpecErrors) else (err,)
    out = []
    for e in errors:
        where = line_of.get(e.line or 0)
        head = f"core member {where}" if where else "declarations"
        out.append(f"{head}: {e.message}")
    return out


def read_core(
    kind: str,
    declarations: Sequence[Declaration],
    members: Sequence[tuple[str, str]],
    witness: Mapping[str, Any] | None,
) -> Reading:
    """Parse and type-check a core against its declarations; ``ReadingError`` if not."""
    from derivative._typecheck import check
    from derivative.grammar import parse_text

    _check_shape(declarations, members)
    const_sources = _const_sources(kind, declarations, members)
    reasons: list[str] = []
    text, line_of, clause_ids, function = _spec_text(
        kind, declarations, members, const_sources, reasons
    )
    if reasons:
        raise ReadingError(reasons)
    try:
        contract = parse_text(text, READER_FILE)
        _check_depth(contract, line_of)
        info = check(contract)
    except (SpecError, SpecErrors) as err:
        raise ReadingError(_spec_errors(err, line_of)) from None

    by_clause = {o.id: o for o in contract.obligations}
    if set(by_clause) != set(clause_ids) or len(contract.obligations) != len(clause_ids):
        raise ReadingError(["the core's expressions do not read as one clause each"])
    ids = [ident for ident, _ in members]
    reading = _reading(kind, ids, [by_clause[c].expr for c in clause_ids], function, contract, info)
    call_name = reading.call_name
    for ident, expr in zip(ids, reading.exprs, strict=True):
        if (
            call_name is not None
            and _uses_call(expr, call_name)
            and not _is_example(expr, call_name)
        ):
            reasons.append(f"core member {ident}: calls {call_name}() outside an example")
    reading.witness = _witness(kind, witness, reading, reasons)
    if reasons:
        raise ReadingError(reasons)
    return reading


MAX_EXPR_DEPTH: Final = 256
"""The deepest core expression read (nodes from the root to a leaf).  The parser reads
any depth without recursion, but the type checker, printer, encoder and evaluator walk
expressions recursively: 100,000 nested ``not`` would end in ``RecursionError``.  No
spec the solver can check comes near (its own JSON report stops near 250 levels)."""


def _depth(expr: Expr) -> int:
    """The depth of ``expr``, without recursion."""
    from derivative._walk import children

    deepest = 0
    stack = [(expr, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_EXPR_DEPTH:
            stack.extend((child, depth + 1) for child in children(node))
    return deepest


def _check_depth(contract: Contract, line_of: Mapping[int, str]) -> None:
    """Refuse a core expression nested deeper than ``MAX_EXPR_DEPTH`` before anything
    walks it recursively."""
    reasons = [
        f"core member {line_of.get(o.line, '?')}: nested deeper than the {MAX_EXPR_DEPTH} "
        "levels a core expression may have"
        for o in contract.obligations
        if _depth(o.expr) > MAX_EXPR_DEPTH
    ]
    if reasons:
        raise ReadingError(reasons)


def _check_shape(declarations: Sequence[Declaration], members: Sequence[tuple[str, str]]) -> None:
    """Names that are names, ids that are unique, a core that is not empty."""
    reasons: list[str] = []
    _check_names(declarations, reasons)
    ids = [ident for ident, _ in members]
    if len(set(ids)) != len(ids):
        reasons.append("two core members have the same id")
    if not members:
        reasons.append("the core is empty")
    if reasons:
        raise ReadingError(reasons)


def _const_sources(
    kind: str, declarations: Sequence[Declaration], members: Sequence[tuple[str, str]]
) -> dict[str, str]:
    """Each constant's value as a literal of its type (types resolved by a probe spec)."""
    from derivative._typecheck import check
    from derivative.grammar import parse_text

    const_sources: dict[str, str] = {}
    consts = [d for d in declarations if isinstance(d, ConstDeclaration)]
    if not consts:
        return const_sources
    reasons: list[str] = []
    probe_text, _, _, _ = _spec_text(kind, declarations, members, None, reasons)
    try:
        probe = check(parse_text(probe_text, READER_FILE))
    except (SpecError, SpecErrors) as err:
        raise ReadingError(_spec_errors(err, {})) from None
    for c in consts:
        try:
            ty = probe.param_types[c.name]
            const_sources[c.name] = to_source(literal(decode(c.value, ty), ty))
        except (ValueError_, KeyError) as err:
            reasons.append(f"const {c.name}: {err}")
    if reasons:
        raise ReadingError(reasons)
    return const_sources


def _reading(
    kind: str,
    ids: list[str],
    exprs: list[Expr],
    function: FunctionDeclaration | None,
    contract: Contract,
    info: TypeInfo,
) -> Reading:
    """The reading of a parsed core: its expressions and the names' resolved types."""
    subject = None if function is None else function.name
    variables: dict[str, Ty]
    result: Ty | None = None
    if subject is None:
        variables = dict(info.param_types)
    else:
        signature = info.signatures[subject]
        variables = {name: ty for name, ty, _ in signature.params}
        result = signature.returns
    return Reading(
        ids=ids,
        exprs=exprs,
        subject=subject,
        variables=variables,
        result=result,
        const_types=dict(info.const_types),
        const_values=dict(info.const_values),
        enums=dict(info.enums),
        exceptions=dict(info.exceptions),
        contract=contract,
        kind=kind,
    )


def _uses_call(expr: Expr, name: str) -> bool:
    from derivative._walk import walk

    return any(isinstance(n, Call) and n.func == name for n in walk(expr))


def _witness(
    kind: str, witness: Mapping[str, Any] | None, reading: Reading, reasons: list[str]
) -> dict[str, Value] | None:
    needs = kind in ("unrealizable", "contradicting_example")
    if not needs:
        if witness is not None:
            reasons.append(f"a {kind} certificate has no witness input")
        return None
    if witness is None:
        reasons.append(f"a {kind} certificate needs a witness input")
        return None
    out: dict[str, Value] = {}
    for name in witness:
        if name not in reading.variables:
            reasons.append(f"witness input {name!r} is not a parameter of {reading.subject}")
    for name, ty in reading.variables.items():
        if name not in witness:
            reasons.append(f"witness input has no value for {name}")
            continue
        try:
            out[name] = decode(witness[name], ty)
        except ValueError_ as err:
            reasons.append(f"witness input {name}: {err}")
    return out


def names_of(exprs: Sequence[Expr]) -> set[str]:
    """Free names used by ``exprs`` (params, consts, function parameters)."""
    from derivative._walk import free_names

    out: set[str] = set()
    for e in exprs:
        out |= set(free_names(e))
    return out


__all__ += ["names_of"]
_ = Name
