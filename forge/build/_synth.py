"""``--synth``: a built-in generator for contracts whose functions pin their result.

When every function says ``ensures: result == EXPR`` (alone or as a conjunct of an
``ensures``), the contract already holds an implementation: raise each ``raises E when C``
in order, then return ``EXPR``.  This module writes that down as readable Python, one
``def`` per function, with the spec's enums as ``enum.Enum`` classes, its exceptions as
classes and its constants as module constants.

It is a generator like any other: its output is judged by the same gates and is never
evidence about itself.  Writing it still has to respect the language's meaning
(LANGUAGE.md §7) where Python differs: ``/`` is exact (``Fraction``), ``x in LO..HI`` is
an inclusive range, ``implies``/``iff`` become ``not A or B``/``A == B``, dates move by
days, ``int(s)`` and ``str(n)`` have no digit limit, ``matches`` is a full match of the
regex translated by the core.  What it cannot translate faithfully it refuses with
``SynthesisRefused``, naming every function it cannot write and why: no
``result == EXPR`` pin, a construct outside the supported ones, systems (state cannot be
read off a pin), ``bind`` lines (the code would live elsewhere), exceptions that cannot be
raised with a message.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Protocol

from derivative import _regex
from derivative._ast import (
    BinOp,
    BoolLit,
    BoolOp,
    Call,
    Compare,
    Contract,
    Count,
    DateLit,
    EnumMember,
    Expr,
    FunctionDecl,
    Generator,
    IfExpr,
    Index,
    IntLit,
    ListLit,
    Name,
    Obligation,
    Quantifier,
    Range,
    RealLit,
    Result,
    StrLit,
    Unary,
)
from derivative._builtins import BUILTIN_EXCEPTIONS
from derivative._errors import DerivativeError
from derivative._printer import to_source
from derivative._typecheck import TypeInfo
from derivative._types import (
    BOOL,
    DATE,
    INT,
    REAL,
    STR,
    TAny,
    TBool,
    TDate,
    TEnum,
    TInt,
    TList,
    TNone,
    TReal,
    TStr,
    Ty,
    base,
)
from derivative._values import EnumValue
from derivative._walk import ExprVisitor, walk

from ._generate import Attempt, GenerationRequest, make_attempt, module_name

__all__ = ["SynthGenerator", "SynthesisRefused", "synth_source", "synthesize"]


class SynthesisRefused(DerivativeError):
    """The contract cannot be synthesised; ``reasons`` names each part and why."""

    exit_code = 2

    def __init__(self, reasons: list[tuple[str, str]]) -> None:
        self.reasons = tuple(reasons)
        lines = "\n".join(f"  {name}: {why}" for name, why in self.reasons)
        super().__init__(f"--synth cannot write this contract:\n{lines}")


class LoadedLike(Protocol):
    """What ``derivative.api.LoadedContract`` offers (this room may not import the API)."""

    @property
    def contract(self) -> Contract: ...

    @property
    def types(self) -> TypeInfo: ...


class _Refuse(Exception):
    """An expression this translator cannot write faithfully (the message says why)."""


# --------------------------------------------------------------------------- expressions

# Python's binding strength of what we emit, loosest first.
P_TEST, P_OR, P_AND, P_NOT, P_CMP, P_ADD, P_MUL, P_UNARY, P_ATOM = 1, 2, 3, 4, 5, 10, 11, 12, 20

# Names the emitted code relies on; a spec name equal to one of them is renamed (locals
# and constants) or the support name is aliased (functions, enums, exceptions).
SUPPORT = frozenset(
    {
        "len", "abs", "min", "max", "sum", "sorted", "all", "any", "range", "int", "str",
        "enum", "datetime", "re", "decimal", "Fraction", "ValueError", "float", "list",
        "bool", "None", "True", "False", "_int_of", "_str_of",
    }
)  # fmt: skip


@dataclass(frozen=True)
class _Py:
    src: str
    prec: int
    ty: Ty

    def at(self, need: int) -> str:
        """The source, parenthesised if it binds looser than ``need``."""
        return self.src if self.prec >= need else f"({self.src})"


def _join(a: Ty, b: Ty) -> Ty:
    a, b = base(a), base(b)
    if isinstance(a, TAny):
        return b
    if isinstance(b, TAny) or a == b:
        return a
    if isinstance(a, (TInt, TReal)) and isinstance(b, (TInt, TReal)):
        return REAL
    if isinstance(a, TList) and isinstance(b, TList):
        return TList(_join(a.elem, b.elem))
    return a


class _Names:
    """Python spellings of the module: fixed names (functions, enums and exceptions keep
    their spec names, since the gates look them up by name), aliases for the support names
    those shadow, module constants, and the current function's local names."""

    def __init__(self, fixed: set[str]) -> None:
        self.fixed = fixed
        self.module = set(fixed) | SUPPORT | set(keyword.kwlist)
        self.alias = {s: self.module_name("_" + s) for s in sorted(SUPPORT & fixed)}
        self.used: set[str] = set()
        self.local_taken: set[str] = set()
        self.locals: list[dict[str, str]] = []

    def module_name(self, name: str) -> str:
        while name in self.module or keyword.iskeyword(name):
            name += "_"
        self.module.add(name)
        return name

    def local_name(self, name: str) -> str:
        name = (name.lstrip("_") if name.startswith("__") else name) or "v"
        while name in self.module or name in self.local_taken or keyword.iskeyword(name):
            name += "_"
        self.local_taken.add(name)
        return name

    def new_function(self) -> None:
        self.local_taken = set()
        self.locals = []

    def use(self, name: str) -> str:
        """The spelling of a support name (aliased when the spec defines that name)."""
        self.used.add(name)
        return self.alias.get(name, name)

    def local(self, spec: str) -> str:
        for frame in reversed(self.locals):
            if spec in frame:
                return frame[spec]
        raise _Refuse(f"the name {spec!r} is not in scope")


class _Translator(ExprVisitor[_Py]):
    """Expressions of the language -> Python source with the language's meaning."""

    def __init__(
        self, info: TypeInfo, names: _Names, consts: Mapping[str, str], scope: dict[str, Ty]
    ) -> None:
        self.info = info
        self.names = names
        self.consts = consts
        self.scope = [scope]
        self.helpers: set[str] = set()

    def py(self, expr: Expr, need: int = P_TEST) -> str:
        return self.visit(expr).at(need)

    def generic_visit(self, node: Expr) -> _Py:
        raise _Refuse(f"`{to_source(node)}` ({node.kind}) has no Python translation here")

    def _bind(self, var: str, ty: Ty) -> str:
        name = self.names.local_name(var)
        self.names.locals.append({var: name})
        self.scope.append({var: ty})
        return name

    def _unbind(self) -> None:
        self.names.local_taken -= set(self.names.locals.pop().values())
        self.scope.pop()

    def _type(self, spec_name: str) -> Ty:
        for frame in reversed(self.scope):
            if spec_name in frame:
                return base(frame[spec_name])
        return base(self.info.const_types[spec_name])

    # ------------------------------------------------------------------ leaves

    def visit_int(self, n: IntLit) -> _Py:
        return _Py(str(n.value), P_ATOM if n.value >= 0 else P_UNARY, INT)

    def visit_real(self, n: RealLit) -> _Py:
        return _Py(f'{self.names.use("Fraction")}("{n.value}")', P_ATOM, REAL)

    def visit_str(self, n: StrLit) -> _Py:
        return _Py(repr(n.value), P_ATOM, STR)

    def visit_bool(self, n: BoolLit) -> _Py:
        return _Py("True" if n.value else "False", P_ATOM, BOOL)

    def visit_date(self, n: DateLit) -> _Py:
        return _Py(self.date_source(date.fromisoformat(n.value)), P_ATOM, DATE)

    def date_source(self, d: date) -> str:
        return f"{self.names.use('datetime')}.date({d.year}, {d.month}, {d.day})"

    def visit_list(self, n: ListLit) -> _Py:
        items = [self.visit(i) for i in n.items]
        elem: Ty = TAny()
        for item in items:
            elem = _join(elem, item.ty)
        return _Py("[" + ", ".join(i.at(P_TEST) for i in items) + "]", P_ATOM, TList(elem))

    def visit_enum_member(self, n: EnumMember) -> _Py:
        ty = self.info.enums.get(n.enum, TEnum(n.enum, ()))
        return _Py(f"{n.enum}.{n.member}", P_ATOM, ty)

    def visit_name(self, n: Name) -> _Py:
        if any(n.id in frame for frame in self.names.locals):
            return _Py(self.names.local(n.id), P_ATOM, self._type(n.id))
        if n.id in self.consts:
            return _Py(self.consts[n.id], P_ATOM, self._type(n.id))
        raise _Refuse(f"the name {n.id!r} is not in scope")

    def visit_result(self, n: Result) -> _Py:
        raise _Refuse("the pinned expression mentions `result` itself")

    def visit_count(self, n: Count) -> _Py:
        raise _Refuse("count(...) belongs to system invariants")

    def visit_range(self, n: Range) -> _Py:
        raise _Refuse("a range LO..HI outside `in`")

    # ------------------------------------------------------------------ operators

    def visit_unary(self, n: Unary) -> _Py:
        if n.op == "not" and isinstance(n.operand, Call) and n.operand.func == "matches":
            found = self.visit(n.operand)
            return _Py(found.src.removesuffix(" is not None") + " is None", P_CMP, BOOL)
        inner = self.visit(n.operand)
        if n.op == "not":
            return _Py(f"not {inner.at(P_NOT)}", P_NOT, BOOL)
        return _Py(f"-{inner.at(P_UNARY)}", P_UNARY, inner.ty)

    def visit_binop(self, n: BinOp) -> _Py:
        a, b = self.visit(n.left), self.visit(n.right)
        if isinstance(a.ty, TDate) or isinstance(b.ty, TDate):
            return self._date_arith(n.op, a, b)
        if n.op == "/":
            frac = self.names.use("Fraction")
            return _Py(f"{frac}({a.at(P_TEST)}) / {b.at(P_UNARY)}", P_MUL, REAL)
        prec = P_ADD if n.op in ("+", "-") else P_MUL
        ty = _join(a.ty, b.ty)
        return _Py(f"{a.at(prec)} {n.op} {b.at(prec + 1)}", prec, ty)

    def _date_arith(self, op: str, a: _Py, b: _Py) -> _Py:
        delta = f"{self.names.use('datetime')}.timedelta"
        if op == "-" and isinstance(a.ty, TDate) and isinstance(b.ty, TDate):
            return _Py(f"({a.at(P_ADD)} - {b.at(P_MUL)}).days", P_ATOM, INT)
        if op == "-" and isinstance(a.ty, TDate):
            return _Py(f"{a.at(P_ADD)} - {delta}(days={b.at(P_TEST)})", P_ADD, DATE)
        if op == "+" and isinstance(a.ty, TDate):
            return _Py(f"{a.at(P_ADD)} + {delta}(days={b.at(P_TEST)})", P_ADD, DATE)
        if op == "+" and isinstance(b.ty, TDate):
            return _Py(f"{b.at(P_ADD)} + {delta}(days={a.at(P_TEST)})", P_ADD, DATE)
        raise _Refuse(f"date arithmetic with {op!r} on these operands")

    def visit_boolop(self, n: BoolOp) -> _Py:
        a, b = self.visit(n.left), self.visit(n.right)
        if n.op == "and":
            return _Py(f"{a.at(P_AND)} and {b.at(P_AND + 1)}", P_AND, BOOL)
        if n.op == "or":
            return _Py(f"{a.at(P_OR)} or {b.at(P_OR + 1)}", P_OR, BOOL)
        if n.op == "implies":
            return _Py(f"not {a.at(P_NOT)} or {b.at(P_OR + 1)}", P_OR, BOOL)
        return _Py(f"{a.at(P_CMP + 1)} == {b.at(P_CMP + 1)}", P_CMP, BOOL)

    def visit_if(self, n: IfExpr) -> _Py:
        c, a, b = self.visit(n.cond), self.visit(n.then), self.visit(n.orelse)
        ty = _join(a.ty, b.ty)
        return _Py(f"{a.at(P_OR)} if {c.at(P_OR)} else {b.at(P_TEST)}", P_TEST, ty)

    def visit_compare(self, n: Compare) -> _Py:
        if not any(isinstance(o, Range) for o in n.operands):
            parts = [self.py(n.operands[0], P_CMP + 1)]
            for op, right in zip(n.ops, n.operands[1:], strict=True):
                parts.append(f"{op} {self.py(right, P_CMP + 1)}")
            return _Py(" ".join(parts), P_CMP, BOOL)
        # A range is only ever the right operand of `in`: split the chain into its links
        # (operands are pure, so evaluating a middle one twice changes nothing).
        links: list[_Py] = []
        for i, op in enumerate(n.ops):
            left, right = n.operands[i], n.operands[i + 1]
            if isinstance(right, Range):
                x = self.py(left, P_CMP + 1)
                lo, hi = self.py(right.lo, P_CMP + 1), self.py(right.hi, P_CMP + 1)
                link = _Py(f"{lo} <= {x} <= {hi}", P_CMP, BOOL)
                links.append(link if op == "in" else _Py(f"not {link.src}", P_NOT, BOOL))
            else:
                text = f"{self.py(left, P_CMP + 1)} {op} {self.py(right, P_CMP + 1)}"
                links.append(_Py(text, P_CMP, BOOL))
        if len(links) == 1:
            return links[0]
        return _Py(" and ".join(link.at(P_AND + 1) for link in links), P_AND, BOOL)

    def visit_quant(self, n: Quantifier) -> _Py:
        lo, hi = self.py(n.lo), self.py(n.hi, P_ADD)
        var = self._bind(n.var, INT)
        try:
            body = self.py(n.body)
        finally:
            self._unbind()
        fn = self.names.use("all" if n.quantifier == "forall" else "any")
        rng = self.names.use("range")
        return _Py(f"{fn}({body} for {var} in {rng}({lo}, {hi} + 1))", P_ATOM, BOOL)

    def visit_gen(self, n: Generator) -> _Py:
        xs = self.visit(n.iterable)
        elem = xs.ty.elem if isinstance(xs.ty, TList) else TAny()
        var = self._bind(n.var, elem)
        try:
            body = self.py(n.body)
        finally:
            self._unbind()
        fn = self.names.use(n.func)
        return _Py(f"{fn}({body} for {var} in {xs.at(P_OR)})", P_ATOM, BOOL)

    def visit_index(self, n: Index) -> _Py:
        b, i = self.visit(n.base), self.visit(n.index)
        ty = b.ty.elem if isinstance(b.ty, TList) else STR
        return _Py(f"{b.at(P_ATOM)}[{i.at(P_TEST)}]", P_ATOM, ty)

    def visit_call(self, n: Call) -> _Py:
        args = [self.visit(a) for a in n.args]
        f = n.func
        if f in ("len", "abs", "min", "max", "sum", "sorted"):
            text = f"{self.names.use(f)}(" + ", ".join(a.at(P_TEST) for a in args) + ")"
            return _Py(text, P_ATOM, _call_type(f, [a.ty for a in args]))
        if f in ("int", "str"):
            self.helpers.add(f)
            helper = self.names.use(f"_{f}_of")
            return _Py(f"{helper}({args[0].at(P_TEST)})", P_ATOM, INT if f == "int" else STR)
        if f == "matches":
            pattern = n.args[1]
            if not isinstance(pattern, StrLit):
                raise _Refuse("matches() without a literal pattern")
            regex = repr(_regex.to_python(pattern.value))
            src = f"{self.names.use('re')}.fullmatch({regex}, {args[0].at(P_TEST)}) is not None"
            return _Py(src, P_CMP, BOOL)
        if f in ("startswith", "endswith"):
            return _Py(f"{args[0].at(P_ATOM)}.{f}({args[1].at(P_TEST)})", P_ATOM, BOOL)
        if f == "contains":
            return _Py(f"{args[1].at(P_CMP + 1)} in {args[0].at(P_CMP + 1)}", P_CMP, BOOL)
        if f == "occurrences":
            return _Py(f"{args[0].at(P_ATOM)}.count({args[1].at(P_TEST)})", P_ATOM, INT)
        raise _Refuse(f"a call of {f}(...)")


def _call_type(f: str, args: list[Ty]) -> Ty:
    if f == "len":
        return INT
    if f in ("abs", "sorted"):
        return args[0]
    if f == "sum":
        elem = args[0].elem if isinstance(args[0], TList) else INT
        return REAL if isinstance(base(elem), TReal) else INT
    if len(args) == 1:  # min/max of a list
        return args[0].elem if isinstance(args[0], TList) else TAny()
    ty: Ty = TAny()
    for t in args:
        ty = _join(ty, t)
    return ty


# --------------------------------------------------------------------------- what to write


def _conjuncts(e: Expr) -> Iterator[Expr]:
    if isinstance(e, BoolOp) and e.op == "and":
        yield from _conjuncts(e.left)
        yield from _conjuncts(e.right)
    else:
        yield e


def _mentions_result(e: Expr) -> bool:
    return any(isinstance(n, Result) for n in walk(e))


def pinned(contract: Contract, name: str) -> tuple[Obligation, Expr] | None:
    """The first ``ensures`` of ``name`` with a conjunct ``result == EXPR`` (or
    ``EXPR == result``) where ``EXPR`` does not mention ``result``; the clause and EXPR."""
    for o in contract.obligations_of(name):
        if o.kind != "ensures":
            continue
        for c in _conjuncts(o.expr):
            if isinstance(c, Compare) and c.ops == ("==",):
                left, right = c.operands
                if isinstance(left, Result) and not _mentions_result(right):
                    return o, right
                if isinstance(right, Result) and not _mentions_result(left):
                    return o, left
    return None


def _annotation(t: Ty, names: _Names, *, result: bool = False) -> str:
    t = base(t)
    simple = {TInt: "int", TBool: "bool", TStr: "str", TNone: "None"}
    if type(t) in simple:
        return simple[type(t)]
    if isinstance(t, TReal):
        return f"{names.use('Fraction')} | float" if result else "float"
    if isinstance(t, TDate):
        return f"{names.use('datetime')}.date"
    if isinstance(t, TList):
        return f"list[{_annotation(t.elem, names, result=result)}]"
    if isinstance(t, TEnum):
        return t.name
    return "object"


def _doc(text: str, indent: str) -> list[str]:
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = body.splitlines() or [""]
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    if lines[-1] == "":
        lines.pop()
    return [f'{indent}"""{lines[0]}', *[f"{indent}{ln}" if ln else "" for ln in lines[1:]],
            f'{indent}"""']  # fmt: skip


def _value_source(value: object, tr: _Translator) -> str:
    """A constant's computed value as Python source (lists as lists, reals exact)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Fraction):
        frac = tr.names.use("Fraction")
        return f"{frac}({value.numerator}, {value.denominator})"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, date):
        return tr.date_source(value)
    if isinstance(value, EnumValue):
        return f"{value.enum}.{value.member}"
    if isinstance(value, tuple):
        return "[" + ", ".join(_value_source(v, tr) for v in value) + "]"
    raise _Refuse(f"no Python literal for {value!r}")


# --------------------------------------------------------------------------- the module


def _raisable(name: str, info: TypeInfo) -> str | None:
    """Why ``raise name("message")`` cannot work in a candidate, or None."""
    root, seen = name, set()
    while root in info.exceptions and root not in seen:
        seen.add(root)
        root = info.exceptions[root]
    cls = BUILTIN_EXCEPTIONS.get(root)
    if cls is None:
        return f"{name} derives from no built-in exception"
    if not issubclass(cls, Exception):
        return f"raising {name} ({root}) would stop the sandbox's worker"
    try:
        cls("message")
    except Exception:
        return f"{name} ({root}) cannot be raised with a message alone"
    return None


def _exception_order(info: TypeInfo) -> list[str]:
    """Declared exceptions, each after its declared base."""
    done: list[str] = []

    def place(name: str, trail: tuple[str, ...]) -> None:
        if name in done or name in trail or name not in info.exceptions:
            return
        place(info.exceptions[name], (*trail, name))
        done.append(name)

    for name in sorted(info.exceptions):
        place(name, ())
    return done


class _Writer:
    """Builds the module's text part by part, collecting every refusal on the way."""

    def __init__(self, loaded: LoadedLike) -> None:
        self.contract, self.info = loaded.contract, loaded.types
        fixed = {f.name for f in self.contract.functions()}
        fixed |= set(self.info.enums) | set(self.info.exceptions)
        self.names = _Names(fixed)
        self.consts = {n: self.names.module_name(n) for n in sorted(self.info.const_types)}
        self.tr = _Translator(self.info, self.names, self.consts, {})
        self.reasons: list[tuple[str, str]] = []

    def refuse(self, name: str, why: str) -> None:
        self.reasons.append((name, why))

    def check_scope(self) -> None:
        for system in self.contract.systems():
            self.refuse(f"system {system.name}", "a system keeps state between operations; "
                        "--synth writes pure functions only")  # fmt: skip
        for d in self.contract.declarations:
            if d.kind == "bind":
                self.refuse(d.name, f'`bind {d.name} to "{d.target}"` puts it in another '
                            "module; --synth writes one module")  # fmt: skip
        if not self.contract.functions() and not self.contract.systems():
            self.refuse("contract", "declares no function: there is nothing to synthesise")
        for name in sorted(self.names.fixed):
            if keyword.iskeyword(name) or name.startswith("__"):
                self.refuse(name, f"{name!r} cannot be defined under that name in Python")

    def enums(self) -> list[str]:
        out: list[str] = []
        for name, ty in sorted(self.info.enums.items()):
            bad = [m for m in ty.members if keyword.iskeyword(m) or m.startswith("_") or m == "mro"]
            if bad:
                self.refuse(name, f"enum members {', '.join(bad)} cannot be Python enum members")
                continue
            out += ["", "", f"class {name}({self.names.use('enum')}.Enum):"]
            out += _doc(f"enum {name} {{ {', '.join(ty.members)} }} of the contract.", "    ")
            out += ["", *[f"    {m} = {m!r}" for m in ty.members]]
        return out

    def exceptions(self) -> list[str]:
        out: list[str] = []
        for name in _exception_order(self.info):
            parent = self.info.exceptions[name]
            spelled = parent if parent in self.info.exceptions else self.names.use(parent)
            out += ["", "", f"class {name}({spelled}):"]
            out += _doc(f"exception {name}({parent}) of the contract.", "    ")
        return out

    def constants(self) -> list[str]:
        out: list[str] = []
        for d in self.contract.consts():
            value = _value_source(self.info.const_values[d.name], self.tr)
            written = to_source(d.value)
            note = "" if written == value else f"  # {written}"
            out.append(f"{self.consts[d.name]} = {value}{note}")
        return ["", "", *out] if out else []

    def function(self, fn: FunctionDecl) -> list[str]:
        """The ``def`` of one function, or ``_Refuse`` saying why it cannot be written."""
        pin = pinned(self.contract, fn.name)
        if pin is None:
            raise _Refuse("no `ensures: result == EXPR` pins its result")
        clause, expr = pin
        sig = self.info.signatures[fn.name]
        self.names.new_function()
        frame = {p: self.names.local_name(p) for p, _, _ in sig.params}
        self.names.locals.append(frame)
        self.tr.scope = [{p: t for p, t, _ in sig.params}]
        params = ", ".join(f"{frame[p]}: {_annotation(t, self.names)}" for p, t, _ in sig.params)
        returns = _annotation(sig.returns, self.names, result=True)
        lines = [f"def {fn.name}({params}) -> {returns}:", *self.docstring(fn.name, clause)]
        for o in self.contract.obligations_of(fn.name):
            if o.kind == "raises" and o.exception is not None:
                lines += self.raise_clause(o)
        value = self.tr.visit(expr)
        if isinstance(base(sig.returns), TInt) and isinstance(value.ty, TReal):
            raise _Refuse(f"`{to_source(expr)}` is a real but the result is an int")
        return [*lines, f"    return {value.src}"]

    def docstring(self, name: str, clause: Obligation) -> list[str]:
        text = f"The result pinned by {clause.id}:\n\n    {to_source(clause.expr)}"
        requires = [to_source(o.expr) for o in self.contract.obligations_of(name)
                    if o.kind == "requires"]  # fmt: skip
        if requires:
            text += "\n\nValid inputs: " + "; ".join(requires) + ".\n"
        return _doc(text, "    ")

    def raise_clause(self, o: Obligation) -> list[str]:
        assert o.exception is not None
        why = _raisable(o.exception, self.info)
        if why is not None:
            raise _Refuse(why)
        exc = o.exception if o.exception in self.info.exceptions else self.names.use(o.exception)
        message = f"{o.id}: {to_source(o.expr)}"
        return [f"    if {self.tr.py(o.expr)}:", f"        raise {exc}({message!r})"]

    def helpers(self) -> list[str]:
        u = self.names.use
        out: list[str] = []
        if "_int_of" in self.names.used:
            out += ["", "", f"def {u('_int_of')}(text: str) -> int:",
                    '    """`int(s)` of the contract: ASCII digits of any length, no sign."""',
                    "    if not (text.isascii() and text.isdigit()):",
                    f"        raise {u('ValueError')}(f\"not a string of digits: {{text!r}}\")",
                    f"    if {u('len')}(text) <= 4000:",
                    f"        return {u('int')}(text)",
                    f"    return {u('int')}({u('decimal')}.Decimal(text))"]  # fmt: skip
        if "_str_of" in self.names.used:
            out += ["", "", f"def {u('_str_of')}(number: int) -> str:",
                    '    """`str(n)` of the contract: the decimal text of an int of any size."""',
                    "    if number.bit_length() <= 13000:",
                    f"        return {u('str')}(number)",
                    f"    return {u('str')}({u('decimal')}.Decimal(number))"]  # fmt: skip
        return out


def _header(w: _Writer) -> list[str]:
    from derivative._canon import contract_identity

    c = w.contract
    doc = (
        f"Candidate for spec {c.name} version {c.version}, synthesised by `derivative build "
        f"--synth`.\n\nContract identity: {contract_identity(c)}\n\nEach function raises what "
        "its `raises` clauses demand, in order, and returns the\nexpression its contract pins "
        "with `ensures: result == ...`.  Written from the\ncontract alone, it is judged like "
        "any other candidate: what produced it\ndoes not certify it."
    )
    lines = [*_doc(doc, ""), "", "from __future__ import annotations", ""]
    modules = {"datetime": "import datetime", "decimal": "import decimal",
               "enum": "import enum", "re": "import re"}  # fmt: skip
    for mod, stmt in sorted(modules.items()):
        if mod in w.names.used:
            alias = w.names.alias.get(mod)
            lines.append(stmt if alias is None else f"{stmt} as {alias}")
    if "Fraction" in w.names.used:
        alias = w.names.alias.get("Fraction")
        lines.append("from fractions import Fraction" + ("" if alias is None else f" as {alias}"))
    for name in sorted(w.names.used - set(modules) - {"Fraction"}):
        if name in w.names.alias:
            lines.append(f"{w.names.alias[name]} = {name}")
    return lines


def synth_source(loaded: LoadedLike) -> str:
    """The synthesised module's text, or ``SynthesisRefused`` naming every obstacle."""
    w = _Writer(loaded)
    w.check_scope()
    enums, exceptions = w.enums(), w.exceptions()
    functions: list[str] = []
    for fn in w.contract.functions():
        try:
            functions += ["", "", *w.function(fn)]
        except _Refuse as why:
            w.refuse(fn.name, str(why))
    try:
        constants = w.constants()
    except _Refuse as why:
        w.refuse("constants", str(why))
    if w.reasons:
        raise SynthesisRefused(w.reasons)
    body = [*enums, *exceptions, *constants, *w.helpers(), *functions]
    return "\n".join([*_header(w), *body]).rstrip() + "\n"


def synthesize(loaded: LoadedLike, *, module: str | None = None) -> dict[str, bytes]:
    """``{module}.py`` written from the contract's pinned results (module docstring)."""
    name = module or module_name(loaded.contract.name)
    return {f"{name}.py": synth_source(loaded).encode("utf-8")}


class SynthGenerator:
    """``--synth`` as a generator: the same answer to every request, so repairing it
    can only stall (the repair loop says so instead of spending the budget)."""

    def __init__(self, loaded: LoadedLike) -> None:
        self.loaded = loaded

    def generate(self, request: GenerationRequest) -> Attempt:
        files = synthesize(self.loaded, module=request.module)
        return make_attempt(
            files, origin="synth", number=request.attempt, request=request,
            parent=request.attempt - 1 if request.previous is not None else None,
        )  # fmt: skip

    def __call__(self, module: str | None = None) -> Attempt:
        return make_attempt(synthesize(self.loaded, module=module), origin="synth")
