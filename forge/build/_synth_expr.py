"""Expressions of the language as Python source with the language's meaning (for ``--synth``).

Python reads like the language but differs in places, and the synthesised code must mean
what the contract means (docs/language.md §7): ``implies``/``iff`` become ``not A or B`` and
``A == B``; ``x in LO..HI`` an inclusive chain; two ints divide exactly (``Fraction``)
while a float stays a float; dates move by ``timedelta`` days; comparisons that read
reals use the language's tolerance (helpers, since a float argument stands for an exact
rational); ``int(s)`` and ``str(n)`` have no digit limit; ``matches`` is a full match of
the regex the core translates.  Parentheses are placed by Python's binding strength, so
the output reads like code a person would write.  A construct without a faithful
translation is ``_Refuse``, never an approximation.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Final

from derivative import _regex
from derivative._ast import (
    BinOp,
    BoolLit,
    BoolOp,
    Call,
    Compare,
    Count,
    DateLit,
    EnumMember,
    Expr,
    Generator,
    IfExpr,
    Index,
    IntLit,
    ListComp,
    ListLit,
    Name,
    Quantifier,
    Range,
    RealLit,
    Result,
    Slice,
    StrLit,
    Unary,
)
from derivative._printer import to_source
from derivative._typecheck import TypeInfo
from derivative._types import (
    BOOL,
    DATE,
    INT,
    REAL,
    STR,
    TAny,
    TDate,
    TEnum,
    TInt,
    TList,
    TReal,
    Ty,
    base,
)
from derivative._walk import ExprVisitor

__all__ = ["HELPERS", "SUPPORT", "Names", "Py", "Refuse", "Spelled", "Translator", "is_real"]


class Refuse(Exception):
    """An expression this translator cannot write faithfully (the message says why)."""


# --------------------------------------------------------------------------- expressions

# Python's binding strength of what we emit, loosest first.
P_TEST, P_OR, P_AND, P_NOT, P_CMP, P_ADD, P_MUL, P_UNARY, P_POW, P_ATOM = (
    *(1, 2, 3, 4, 5, 10, 11, 12),
    *(13, 20),
)

# Names the emitted code relies on; a spec name equal to one of them is renamed (locals
# and constants) or the support name is aliased (functions, enums, exceptions).
SUPPORT = frozenset(
    {
        "len", "abs", "min", "max", "sum", "sorted", "all", "any", "range", "int", "str",
        "reversed",
        "enum", "datetime", "re", "decimal", "Fraction", "ValueError", "float", "list",
        "bool", "None", "True", "False", "math", "isinstance", "tuple", "zip", "OverflowError",
        "_int_of", "_str_of", "_real_eq", "_real_lt", "_real_le", "_real_in", "_real_count",
        "_REL_TOL",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Py:
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


class Names:
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
        raise Refuse(f"the name {spec!r} is not in scope")


class Translator(ExprVisitor[Py]):
    """Expressions of the language -> Python source with the language's meaning."""

    def __init__(
        self, info: TypeInfo, names: Names, consts: Mapping[str, str], scope: dict[str, Ty]
    ) -> None:
        self.info = info
        self.names = names
        self.consts = consts
        self.scope = [scope]
        self.helpers: set[str] = set()

    def py(self, expr: Expr, need: int = P_TEST) -> str:
        return self.visit(expr).at(need)

    def generic_visit(self, node: Expr) -> Py:
        raise Refuse(f"`{to_source(node)}` ({node.kind}) has no Python translation here")

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

    def visit_int(self, n: IntLit) -> Py:
        return Py(str(n.value), P_ATOM if n.value >= 0 else P_UNARY, INT)

    def visit_real(self, n: RealLit) -> Py:
        return Py(f'{self.names.use("Fraction")}("{n.value}")', P_ATOM, REAL)

    def visit_str(self, n: StrLit) -> Py:
        return Py(repr(n.value), P_ATOM, STR)

    def visit_bool(self, n: BoolLit) -> Py:
        return Py("True" if n.value else "False", P_ATOM, BOOL)

    def visit_date(self, n: DateLit) -> Py:
        return Py(self.date_source(date.fromisoformat(n.value)), P_ATOM, DATE)

    def date_source(self, d: date) -> str:
        return f"{self.names.use('datetime')}.date({d.year}, {d.month}, {d.day})"

    def visit_list(self, n: ListLit) -> Py:
        items = [self.visit(i) for i in n.items]
        elem: Ty = TAny()
        for item in items:
            elem = _join(elem, item.ty)
        return Py("[" + ", ".join(i.at(P_TEST) for i in items) + "]", P_ATOM, TList(elem))

    def visit_enum_member(self, n: EnumMember) -> Py:
        ty = self.info.enums.get(n.enum, TEnum(n.enum, ()))
        return Py(f"{n.enum}.{n.member}", P_ATOM, ty)

    def visit_name(self, n: Name) -> Py:
        if any(n.id in frame for frame in self.names.locals):
            return Py(self.names.local(n.id), P_ATOM, self._type(n.id))
        if n.id in self.consts:
            return Py(self.consts[n.id], P_ATOM, self._type(n.id))
        raise Refuse(f"the name {n.id!r} is not in scope")

    def visit_result(self, n: Result) -> Py:
        raise Refuse("the pinned expression mentions `result` itself")

    def visit_count(self, n: Count) -> Py:
        raise Refuse("count(...) belongs to system invariants")

    def visit_range(self, n: Range) -> Py:
        raise Refuse("a range LO..HI outside `in`")

    # ------------------------------------------------------------------ operators

    def visit_unary(self, n: Unary) -> Py:
        if n.op == "not" and isinstance(n.operand, Call) and n.operand.func == "matches":
            found = self.visit(n.operand)
            return Py(found.src.removesuffix(" is not None") + " is None", P_CMP, BOOL)
        inner = self.visit(n.operand)
        if n.op == "not":
            return Py(f"not {inner.at(P_NOT)}", P_NOT, BOOL)
        return Py(f"-{inner.at(P_UNARY)}", P_UNARY, inner.ty)

    def visit_binop(self, n: BinOp) -> Py:
        """A run folds from the left, as Python's own ``a + b + c`` does."""
        if n.op == "**":
            return self._power(n)
        acc = self.visit(n.operands[0])
        for operand in n.operands[1:]:
            acc = self._step(n.op, acc, self.visit(operand))
        return acc

    def _step(self, op: str, a: Py, b: Py) -> Py:
        if isinstance(a.ty, TDate) or isinstance(b.ty, TDate):
            return self._date_arith(op, a, b)
        if op == "/" and not (is_real(a.ty) or is_real(b.ty)):
            # Two ints divide exactly; a real (a float argument) stays a float, as in
            # the language, where arithmetic on a float gives a float.
            frac = self.names.use("Fraction")
            return Py(f"{frac}({a.at(P_TEST)}, {b.at(P_TEST)})", P_ATOM, REAL)
        if op == "/":
            return Py(f"{a.at(P_MUL)} / {b.at(P_MUL + 1)}", P_MUL, REAL)
        prec = P_ADD if op in ("+", "-") else P_MUL
        ty = _join(a.ty, b.ty)
        return Py(f"{a.at(prec)} {op} {b.at(prec + 1)}", prec, ty)

    def _power(self, n: BinOp) -> Py:
        """``a ** k`` for a literal ``k >= 0`` only: Python's ``**`` then means the
        language's; another exponent could be negative (undefined in the language, a
        float in Python)."""
        a, k = n.operands
        if not (isinstance(k, IntLit) and k.value >= 0):
            raise Refuse("** with an exponent that is not a literal")
        base_py = self.visit(a)
        return Py(f"{base_py.at(P_ATOM)} ** {k.value}", P_POW, base_py.ty)

    def _date_arith(self, op: str, a: Py, b: Py) -> Py:
        delta = f"{self.names.use('datetime')}.timedelta"
        if op == "-" and isinstance(a.ty, TDate) and isinstance(b.ty, TDate):
            return Py(f"({a.at(P_ADD)} - {b.at(P_MUL)}).days", P_ATOM, INT)
        if op == "-" and isinstance(a.ty, TDate):
            return Py(f"{a.at(P_ADD)} - {delta}(days={b.at(P_TEST)})", P_ADD, DATE)
        if op == "+" and isinstance(a.ty, TDate):
            return Py(f"{a.at(P_ADD)} + {delta}(days={b.at(P_TEST)})", P_ADD, DATE)
        if op == "+" and isinstance(b.ty, TDate):
            return Py(f"{b.at(P_ADD)} + {delta}(days={a.at(P_TEST)})", P_ADD, DATE)
        raise Refuse(f"date arithmetic with {op!r} on these operands")

    def visit_boolop(self, n: BoolOp) -> Py:
        parts = [self.visit(o) for o in n.operands]
        if n.op == "and":
            return Py(" and ".join(p.at(P_AND + 1) for p in parts), P_AND, BOOL)
        if n.op == "or":
            return Py(" or ".join(p.at(P_OR + 1) for p in parts), P_OR, BOOL)
        a, b = parts
        if n.op == "implies":
            return Py(f"not {a.at(P_NOT)} or {b.at(P_OR + 1)}", P_OR, BOOL)
        return Py(f"{a.at(P_CMP + 1)} == {b.at(P_CMP + 1)}", P_CMP, BOOL)

    def visit_if(self, n: IfExpr) -> Py:
        c, a, b = self.visit(n.cond), self.visit(n.then), self.visit(n.orelse)
        ty = _join(a.ty, b.ty)
        return Py(f"{a.at(P_OR)} if {c.at(P_OR)} else {b.at(P_TEST)}", P_TEST, ty)

    def visit_compare(self, n: Compare) -> Py:
        operands = [None if isinstance(o, Range) else self.visit(o) for o in n.operands]
        if self._plain_chain(n, operands):
            parts = [_needs(operands[0]).at(P_CMP + 1)]
            for op, right in zip(n.ops, operands[1:], strict=True):
                parts.append(f"{op} {_needs(right).at(P_CMP + 1)}")
            return Py(" ".join(parts), P_CMP, BOOL)
        # Split the chain into its links (operands are pure, so evaluating a middle one
        # twice changes nothing): a range, or a comparison of reals, is written as a call.
        links = [
            self._link(op, _needs(operands[i]), n.operands[i + 1], operands[i + 1])
            for i, op in enumerate(n.ops)
        ]
        if len(links) == 1:
            return links[0]
        return Py(" and ".join(link.at(P_AND + 1) for link in links), P_AND, BOOL)

    def _plain_chain(self, n: Compare, operands: list[Py | None]) -> bool:
        """Whether Python's own chain means what the language's does here."""
        for i, op in enumerate(n.ops):
            left, right = operands[i], operands[i + 1]
            if left is None or right is None or _real_link(op, left.ty, right.ty):
                return False
        return True

    def _link(self, op: str, left: Py, node: Expr, right: Py | None) -> Py:
        if isinstance(node, Range):
            x = left.at(P_CMP + 1)
            lo, hi = self.py(node.lo, P_CMP + 1), self.py(node.hi, P_CMP + 1)
            link = Py(f"{lo} <= {x} <= {hi}", P_CMP, BOOL)
            return link if op == "in" else Py(f"not {link.src}", P_NOT, BOOL)
        right = _needs(right)
        if not _real_link(op, left.ty, right.ty):
            return Py(f"{left.at(P_CMP + 1)} {op} {right.at(P_CMP + 1)}", P_CMP, BOOL)
        a, b = left.at(P_TEST), right.at(P_TEST)
        if op in ("in", "not in"):
            call = Py(f"{self.helper('_real_in')}({a}, {b})", P_ATOM, BOOL)
        else:
            name, swap = _REAL_OPS[op]
            x, y = (b, a) if swap else (a, b)
            call = Py(f"{self.helper(name)}({x}, {y})", P_ATOM, BOOL)
        return Py(f"not {call.src}", P_NOT, BOOL) if op in ("!=", "not in") else call

    def helper(self, name: str) -> str:
        """The spelling of a helper function the module must define."""
        self.helpers.add(name)
        return self.names.use(name)

    def visit_quant(self, n: Quantifier) -> Py:
        lo, hi = self.py(n.lo), self.py(n.hi, P_ADD)
        var = self._bind(n.var, INT)
        try:
            body = self.py(n.body)
        finally:
            self._unbind()
        fn = self.names.use("all" if n.quantifier == "forall" else "any")
        rng = self.names.use("range")
        return Py(f"{fn}({body} for {var} in {rng}({lo}, {hi} + 1))", P_ATOM, BOOL)

    def visit_gen(self, n: Generator) -> Py:
        xs = self.visit(n.iterable)
        elem = xs.ty.elem if isinstance(xs.ty, TList) else TAny()
        var = self._bind(n.var, elem)
        try:
            body = self.py(n.body)
        finally:
            self._unbind()
        fn = self.names.use(n.func)
        return Py(f"{fn}({body} for {var} in {xs.at(P_OR)})", P_ATOM, BOOL)

    def visit_index(self, n: Index) -> Py:
        b, i = self.visit(n.base), self.visit(n.index)
        ty = b.ty.elem if isinstance(b.ty, TList) else STR
        return Py(f"{b.at(P_ATOM)}[{i.at(P_TEST)}]", P_ATOM, ty)

    def visit_slice(self, n: Slice) -> Py:
        """Python's own slice: the language's bounds mean what Python's do."""
        b = self.visit(n.base)
        lo = "" if n.lo is None else self.py(n.lo)
        hi = "" if n.hi is None else self.py(n.hi)
        return Py(f"{b.at(P_ATOM)}[{lo}:{hi}]", P_ATOM, b.ty)

    def visit_listcomp(self, n: ListComp) -> Py:
        xs = self.visit(n.iterable)
        elem = xs.ty.elem if isinstance(xs.ty, TList) else TAny()
        var = self._bind(n.var, elem)
        try:
            cond = "" if n.cond is None else f" if {self.py(n.cond, P_OR)}"
            body = self.visit(n.body)
        finally:
            self._unbind()
        src = f"[{body.at(P_TEST)} for {var} in {xs.at(P_OR)}{cond}]"
        return Py(src, P_ATOM, TList(body.ty))

    def visit_call(self, n: Call) -> Py:
        args = [self.visit(a) for a in n.args]
        f = n.func
        if f in ("len", "abs", "min", "max", "sum", "sorted"):
            text = f"{self.names.use(f)}(" + ", ".join(a.at(P_TEST) for a in args) + ")"
            return Py(text, P_ATOM, _call_type(f, [a.ty for a in args]))
        if f in ("int", "str"):
            helper = self.helper(f"_{f}_of")
            return Py(f"{helper}({args[0].at(P_TEST)})", P_ATOM, INT if f == "int" else STR)
        if f == "matches":
            pattern = n.args[1]
            if not isinstance(pattern, StrLit):
                raise Refuse("matches() without a literal pattern")
            regex = repr(_regex.to_python(pattern.value))
            src = f"{self.names.use('re')}.fullmatch({regex}, {args[0].at(P_TEST)}) is not None"
            return Py(src, P_CMP, BOOL)
        if f in ("startswith", "endswith"):
            return Py(f"{args[0].at(P_ATOM)}.{f}({args[1].at(P_TEST)})", P_ATOM, BOOL)
        if f == "contains":
            return Py(f"{args[1].at(P_CMP + 1)} in {args[0].at(P_CMP + 1)}", P_CMP, BOOL)
        if f == "occurrences" and is_real(args[0].ty):
            text = f"{self.helper('_real_count')}({args[0].at(P_TEST)}, {args[1].at(P_TEST)})"
            return Py(text, P_ATOM, INT)
        if f == "occurrences":
            return Py(f"{args[0].at(P_ATOM)}.count({args[1].at(P_TEST)})", P_ATOM, INT)
        if f == "product":
            text = f"{self.names.use('math')}.prod({args[0].at(P_TEST)})"
            return Py(text, P_ATOM, _call_type("sum", [a.ty for a in args]))
        if f == "reversed":
            text = f"{self.names.use('list')}({self.names.use('reversed')}({args[0].at(P_TEST)}))"
            return Py(text, P_ATOM, args[0].ty)
        raise Refuse(f"a call of {f}(...)")


_REAL_OPS: Final = {
    "==": ("_real_eq", False), "!=": ("_real_eq", False), "<": ("_real_lt", False),
    "<=": ("_real_le", False), ">": ("_real_lt", True), ">=": ("_real_le", True),
}  # fmt: skip
"""A comparison of reals as a helper call: (helper, whether the operands swap)."""


def is_real(t: Ty) -> bool:
    t = base(t)
    return isinstance(t, TReal) or (isinstance(t, TList) and is_real(t.elem))


def _real_link(op: str, a: Ty, b: Ty) -> bool:
    """Whether a comparison reads reals, and so the language's tolerance (docs/language.md §6.4)."""
    if op in ("in", "not in"):
        return isinstance(base(b), TList) and is_real(b)
    return is_real(a) or is_real(b)


def _needs(p: Py | None) -> Py:
    assert p is not None, "a range is only ever the right operand of `in`"
    return p


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


class Spelled(dict[str, str]):
    """``str.format_map`` source: every support name as the module spells it."""

    def __init__(self, names: Names) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, key: str) -> str:
        return self.names.use(key)


HELPERS: Final = {
    "_int_of": """\
def {_int_of}(text: str) -> int:
    \"\"\"`int(s)` of the contract: ASCII digits of any length, no sign.\"\"\"
    if not (text.isascii() and text.isdigit()):
        raise {ValueError}(f"not a string of digits: {{text!r}}")
    if {len}(text) <= 4000:
        return {int}(text)
    return {int}({decimal}.Decimal(text))""",
    "_str_of": """\
def {_str_of}(number: int) -> str:
    \"\"\"`str(n)` of the contract: the decimal text of an int of any size.\"\"\"
    if number.bit_length() <= 13000:
        return {str}(number)
    return {str}({decimal}.Decimal(number))""",
    "_real_eq": """\
def {_real_eq}(a: object, b: object) -> bool:
    \"\"\"`a == b` on reals: equal, or close when a float is involved; lists item by item.\"\"\"
    if {isinstance}(a, ({list}, {tuple})) and {isinstance}(b, ({list}, {tuple})):
        return {len}(a) == {len}(b) and {all}({_real_eq}(x, y) for x, y in {zip}(a, b))
    if {isinstance}(a, {float}) or {isinstance}(b, {float}):
        try:
            return a == b or {math}.isclose(a, b, rel_tol={_REL_TOL}, abs_tol=1e-12)
        except {OverflowError}:
            return False
    return a == b""",
    "_real_lt": """\
def {_real_lt}(a: object, b: object) -> bool:
    \"\"\"`a < b` on reals: less, and not close.\"\"\"
    return a < b and not {_real_eq}(a, b)""",
    "_real_le": """\
def {_real_le}(a: object, b: object) -> bool:
    \"\"\"`a <= b` on reals: less, or close.\"\"\"
    return a < b or {_real_eq}(a, b)""",
    "_real_in": """\
def {_real_in}(value: object, items: object) -> bool:
    \"\"\"`value in items` for a list of reals, with the tolerance of `==`.\"\"\"
    return {any}({_real_eq}(value, item) for item in items)""",
    "_real_count": """\
def {_real_count}(items: object, value: object) -> int:
    \"\"\"`occurrences(items, value)` for a list of reals, with the tolerance of `==`.\"\"\"
    return {sum}(1 for item in items if {_real_eq}(item, value))""",
}
"""Helpers of the synthesised module, as templates over the module's spellings."""
