"""Contract expressions as Python source: the *fourth reading* of the AST (docs/architecture.md).

The source runs over the runtime a written module carries (``_runtime.py``) and is held to
the evaluator by ``tests/property/test_codegen_differential.py``.  How the compiled Python
reads values: ``int``/``bool``/``str`` as themselves, reals as ``Fraction`` (literals) or
``float`` (inputs, results), dates as ``datetime.date``, lists as tuples, enum values as
their member names (``"ok"``).
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from datetime import date
from fractions import Fraction

from derivative import _regex
from derivative._ast import (
    BinOp,
    BoolLit,
    BoolOp,
    Call,
    Compare,
    Count,
    DateLit,
    DictLit,
    EnumMember,
    Expr,
    Generator,
    IfExpr,
    Index,
    IntLit,
    ListComp,
    ListLit,
    Name,
    NoneLit,
    Quantifier,
    Range,
    RealLit,
    Result,
    Slice,
    StrLit,
    TupleLit,
    Unary,
)
from derivative._errors import InternalError
from derivative._typecheck_compound import tuple_position
from derivative._types import (
    BOOL,
    DATE,
    INT,
    REAL,
    STR,
    TAny,
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
    base,
)
from derivative._types import join_base as _join
from derivative._values import DictValue, EnumValue, TupleValue
from derivative._walk import ExprVisitor

from ._embed import carried_names

__all__ = ["CompileError", "PyCompiler", "py_value", "pyname", "ty_source"]


class CompileError(InternalError):
    """An expression the Python reading cannot express (a bug: the checker rules it out)."""


# --------------------------------------------------------------------------- values


_TEXT_CALLS: dict[str, tuple[str, Ty]] = {
    "lower": ("_lower", STR),
    "upper": ("_upper", STR),
    "strip": ("_strip", STR),
    "split": ("_split", TList(STR)),
    "join": ("_join", STR),
    "ord": ("_ord", INT),
    "chr": ("_chr", STR),
}
"""The text built-ins: each a runtime helper (``_runtime.py``) of its arguments, in order."""


def _step_type(op: str, a: Ty, b: Ty) -> Ty:
    """The type of one step of a ``+``/``*`` run (what ``visit_binop`` gives two operands)."""
    if isinstance(a, TDate) or isinstance(b, TDate):
        return TAny() if isinstance(a, TAny) or isinstance(b, TAny) else DATE
    if op == "+" and isinstance(a, TStr):
        return STR
    return _join(a, b)


def py_value(value: object) -> str:
    """Python source of a test value (see the module docstring for the representation)."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return repr(value) if value >= 0 else f"({value})"
    if isinstance(value, float):
        text = repr(value)
        return text if value >= 0 and "e" not in text and "inf" not in text else f"({text})"
    if isinstance(value, Fraction):
        return f"Fraction({value.numerator}, {value.denominator})"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, date):
        return f"datetime.date({value.year}, {value.month}, {value.day})"
    if isinstance(value, EnumValue):
        return repr(value.member)
    if isinstance(value, tuple):
        if not value:
            return "()"
        return "(" + ", ".join(py_value(v) for v in value) + ",)"
    if isinstance(value, TupleValue):
        return py_value(value.items)
    if isinstance(value, DictValue):
        return "{" + ", ".join(f"{py_value(k)}: {py_value(v)}" for k, v in value.entries) + "}"
    raise CompileError(f"no Python literal for {value!r}")


def ty_source(ty: Ty) -> str:
    """The runtime's type descriptor of ``ty`` (what ``_conform`` and ``_arg`` read)."""
    if isinstance(ty, TInt):
        return f"('int', {ty.lo!r}, {ty.hi!r})"
    if isinstance(ty, TBool):
        return "('bool',)"
    if isinstance(ty, TReal):
        return "('real',)"
    if isinstance(ty, TStr):
        pattern = None if ty.pattern is None else _regex.to_python(ty.pattern)
        return f"('str', {pattern!r})"
    if isinstance(ty, TDate):
        return "('date',)"
    if isinstance(ty, TList):
        return f"('list', {ty_source(ty.elem)})"
    if isinstance(ty, TEnum):
        return f"('enum', {ty.name!r}, {ty.members!r})"
    if isinstance(ty, TNone):
        return "('none',)"
    if isinstance(ty, TTuple):
        return "('tuple', (" + "".join(ty_source(t) + ", " for t in ty.items) + "))"
    if isinstance(ty, TOptional):
        return f"('optional', {ty_source(ty.elem)})"
    if isinstance(ty, TDict):
        return f"('dict', {ty_source(ty.key)}, {ty_source(ty.value)})"
    return "('any',)"


# --------------------------------------------------------------------------- expressions

_RESERVED = frozenset(
    {
        "len", "abs", "min", "max", "sum", "int", "str", "all", "any", "range", "sorted",
        "tuple", "datetime", "decimal", "Fraction", "math", "re", "enum", "result", "self",
        "st", "settings", "given", "example", "reject", "pytest", "os", "sys", "pathlib",
        "importlib", "inp", "data", "True", "False", "None", "bool", "float", "isinstance",
        "type", "zip", "reversed",
    }
)  # fmt: skip


def pyname(name: str) -> str:
    """A spec identifier as a Python identifier (keywords and clashes get a ``_``).

    A clash is also any top-level name of the code a written module carries (runtime,
    concurrent hammer, interleaving explorer): a constant named ``time`` or ``judge``
    would otherwise replace the module or function that code calls."""
    if (keyword.iskeyword(name) or name in _RESERVED or name.startswith("_")
            or name in carried_names()):
        return name + "_"
    return name


def _is_real(t: Ty) -> bool:
    """Whether a value of ``t`` may hold a float (then ``==`` needs the slack of ``_eq``)."""
    if isinstance(t, TReal):
        return True
    if isinstance(t, TList | TOptional):
        return _is_real(t.elem)
    if isinstance(t, TTuple):
        return any(_is_real(x) for x in t.items)
    if isinstance(t, TDict):
        return _is_real(t.value)
    return False


class PyCompiler(ExprVisitor[tuple[str, Ty]]):
    """Expressions → Python source over the runtime (module docstring).

    ``scope`` gives the types of the names in scope (parameters, constants, ``result``
    under the key ``"result"``); names are emitted through ``pyname``.  ``count`` is
    compiled by the caller of this class (it only occurs in invariants).
    """

    def __init__(self, scope: Mapping[str, Ty], enums: Mapping[str, TEnum] | None = None) -> None:
        self.scope: dict[str, Ty] = dict(scope)
        self.enums = dict(enums or {})

    def compile(self, expr: Expr) -> str:
        return self.visit(expr)[0]

    def generic_visit(self, node: Expr) -> tuple[str, Ty]:
        raise CompileError(f"cannot compile a node of kind {node.kind!r}")

    # ------------------------------------------------------------------ leaves

    def visit_int(self, n: IntLit) -> tuple[str, Ty]:
        return py_value(n.value), INT

    def visit_real(self, n: RealLit) -> tuple[str, Ty]:
        f = Fraction(n.value)
        return f"Fraction({f.numerator}, {f.denominator})", REAL

    def visit_str(self, n: StrLit) -> tuple[str, Ty]:
        return repr(n.value), STR

    def visit_bool(self, n: BoolLit) -> tuple[str, Ty]:
        return ("True" if n.value else "False"), BOOL

    def visit_date(self, n: DateLit) -> tuple[str, Ty]:
        return py_value(date.fromisoformat(n.value)), DATE

    def visit_enum_member(self, n: EnumMember) -> tuple[str, Ty]:
        return repr(n.member), self.enums.get(n.enum, TEnum(n.enum, ()))

    def visit_list(self, n: ListLit) -> tuple[str, Ty]:
        items = [self.visit(i) for i in n.items]
        elem: Ty = TAny()
        for _, t in items:
            elem = _join(elem, t)
        if not items:
            return "()", TList(TAny())
        return "(" + ", ".join(s for s, _ in items) + ",)", TList(elem)

    def visit_tuple(self, n: TupleLit) -> tuple[str, Ty]:
        items = [self.visit(i) for i in n.items]
        return "(" + "".join(s + ", " for s, _ in items) + ")", TTuple(tuple(t for _, t in items))

    def visit_none(self, n: NoneLit) -> tuple[str, Ty]:
        return "None", TNone()

    def visit_dict(self, n: DictLit) -> tuple[str, Ty]:
        """A dict literal through ``_dict`` (keys and values evaluated in order)."""
        key: Ty = TAny()
        val: Ty = TAny()
        parts: list[str] = []
        for k_node, v_node in zip(n.keys, n.values, strict=True):
            k, tk = self.visit(k_node)
            v, tv = self.visit(v_node)
            key, val = _join(key, tk), _join(val, tv)
            parts.append(f"({k}, {v})")
        return "_dict(" + ", ".join(parts) + ")", TDict(key, val)

    def visit_name(self, n: Name) -> tuple[str, Ty]:
        if n.id not in self.scope:
            raise CompileError(f"the name {n.id!r} is not in scope")
        return pyname(n.id), base(self.scope[n.id])

    def visit_result(self, n: Result) -> tuple[str, Ty]:
        if "result" not in self.scope:
            raise CompileError("`result` is not in scope")
        return "result", base(self.scope["result"])

    # ------------------------------------------------------------------ operators

    def visit_unary(self, n: Unary) -> tuple[str, Ty]:
        s, t = self.visit(n.operand)
        if n.op == "not":
            return f"(not {s})", BOOL
        return f"(-{s})", t

    def visit_binop(self, n: BinOp) -> tuple[str, Ty]:
        """Two operands: the step inline; a run of three or more: one ``_run`` call over
        all of them (flat, however long), typed step by step as the checker types it."""
        if len(n.operands) > 2:
            parts = [self.visit(o) for o in n.operands]
            ty = parts[0][1]
            for _, t in parts[1:]:
                ty = _step_type(n.op, ty, t)
            return f"_run({n.op!r}, {', '.join(p for p, _ in parts)})", ty
        left, right = n.operands
        a, ta = self.visit(left)
        b, tb = self.visit(right)
        op = n.op
        if op == "**":
            return f"_pow({a}, {b})", (REAL if isinstance(ta, TReal) else ta)
        if isinstance(ta, TDate) or isinstance(tb, TDate):
            if isinstance(ta, TAny) or isinstance(tb, TAny):
                # `[]`'s element type is unknown here: decide by the values at run time.
                return f"_date_arith({a}, {op!r}, {b})", TAny()
            if op == "-" and isinstance(ta, TDate) and isinstance(tb, TDate):
                return f"_date_diff({a}, {b})", INT
            if op == "+" and isinstance(ta, TDate):
                return f"_date_add({a}, {b})", DATE
            if op == "+":
                return f"_date_add({b}, {a})", DATE
            if op == "-":
                return f"_date_add({a}, -({b}))", DATE
            raise CompileError(f"date {op}")
        if op == "+" and isinstance(ta, (TStr, TList)):
            ty = _join(ta, tb) if isinstance(ta, TList) else STR
            return f"({a} + {b})", ty
        if op == "/":
            return f"_div({a}, {b})", REAL
        if op == "//":
            return f"_floordiv({a}, {b})", _join(ta, tb)
        if op == "%":
            return f"_mod({a}, {b})", _join(ta, tb)
        ty = _join(ta, tb)
        text = f"({a} {op} {b})"
        return (f"_fin{text}" if isinstance(ty, TReal) else text), ty

    def visit_boolop(self, n: BoolOp) -> tuple[str, Ty]:
        parts = [self.visit(o)[0] for o in n.operands]
        if n.op in ("and", "or"):
            return "(" + f" {n.op} ".join(parts) + ")", BOOL  # flat in Python too
        a, b = parts
        if n.op == "implies":
            return f"(not {a} or {b})", BOOL  # every operand's text is atomic
        return f"({a} == {b})", BOOL

    def visit_if(self, n: IfExpr) -> tuple[str, Ty]:
        c, _ = self.visit(n.cond)
        a, ta = self.visit(n.then)
        b, tb = self.visit(n.orelse)
        return f"({a} if {c} else {b})", _join(ta, tb)

    def visit_compare(self, n: Compare) -> tuple[str, Ty]:
        operands: list[tuple[str, Ty] | tuple[str, str, Ty]] = []
        for node in n.operands:
            if isinstance(node, Range):
                lo, _ = self.visit(node.lo)
                hi, _ = self.visit(node.hi)
                operands.append(("range", lo, hi, INT))  # type: ignore[arg-type]
            else:
                operands.append(self.visit(node))
        plain = True
        links: list[str] = []
        for i, op in enumerate(n.ops):
            left, right = operands[i], operands[i + 1]
            if len(right) == 4:  # a range: only right of in / not in
                _, lo, hi, _ = right
                # A call: the element and both bounds are evaluated before comparing.
                inside = f"_in_range({left[0]}, {lo}, {hi})"
                links.append(inside if op == "in" else f"(not {inside})")
                plain = False
                continue
            a, ta = left[0], left[-1]
            b, tb = right[0], right[-1]
            assert isinstance(ta, Ty) and isinstance(tb, Ty)
            if op in ("in", "not in"):
                if isinstance(tb, TList) and _is_real(tb.elem):
                    test = f"_member({a}, {b})"
                    plain = False
                else:
                    test = f"({a} in {b})"
                links.append(test if op == "in" else f"(not {test})")
                continue
            if _is_real(ta) or _is_real(tb):
                plain = False
                helper = {"==": "_eq({a}, {b})", "!=": "(not _eq({a}, {b}))",
                          "<": "_lt({a}, {b})", "<=": "_le({a}, {b})",
                          ">": "_lt({b}, {a})", ">=": "_le({b}, {a})"}[op]
                links.append(helper.format(a=a, b=b))
            else:
                links.append(f"({a} {op} {b})")
        if plain and len(n.ops) > 1:
            # Python's own chain: each operand evaluated once, stopping at the first
            # false link, exactly as the language says.
            parts = [str(operands[0][0])]
            for op, right in zip(n.ops, operands[1:], strict=True):
                parts.append(f"{op} {right[0]}")
            return "(" + " ".join(parts) + ")", BOOL
        if len(links) == 1:
            return links[0], BOOL
        # Operands are pure, so evaluating a middle operand twice changes nothing.
        return "(" + " and ".join(links) + ")", BOOL

    def visit_range(self, n: Range) -> tuple[str, Ty]:
        raise CompileError("a range is only meaningful right of `in`")

    def visit_quant(self, n: Quantifier) -> tuple[str, Ty]:
        lo, _ = self.visit(n.lo)
        hi, _ = self.visit(n.hi)
        saved = self.scope.get(n.var)
        self.scope[n.var] = INT
        try:
            body, _ = self.visit(n.body)
        finally:
            if saved is None:
                self.scope.pop(n.var, None)
            else:
                self.scope[n.var] = saved
        fn = "all" if n.quantifier == "forall" else "any"
        return f"{fn}({body} for {pyname(n.var)} in range({lo}, ({hi}) + 1))", BOOL

    def visit_gen(self, n: Generator) -> tuple[str, Ty]:
        xs, txs = self.visit(n.iterable)
        elem = txs.elem if isinstance(txs, TList) else TAny()
        saved = self.scope.get(n.var)
        self.scope[n.var] = elem
        try:
            body, _ = self.visit(n.body)
        finally:
            if saved is None:
                self.scope.pop(n.var, None)
            else:
                self.scope[n.var] = saved
        return f"{n.func}({body} for {pyname(n.var)} in {xs})", BOOL

    def visit_index(self, n: Index) -> tuple[str, Ty]:
        b, tb = self.visit(n.base)
        i, _ = self.visit(n.index)
        if isinstance(tb, TTuple):
            pos = tuple_position(n.index)
            if pos is None:
                raise CompileError("a tuple indexed by a non-literal")
            return f"{b}[{pos}]", tb.items[pos]
        if isinstance(tb, TDict):
            return f"_key({b}, {i})", tb.value
        ty = tb.elem if isinstance(tb, TList) else STR
        return f"_index({b}, {i})", ty

    def visit_slice(self, n: Slice) -> tuple[str, Ty]:
        """Python's own slice (tuples and strings): negative and far bounds mean the same."""
        b, tb = self.visit(n.base)
        lo = "" if n.lo is None else self.visit(n.lo)[0]
        hi = "" if n.hi is None else self.visit(n.hi)[0]
        return f"{b}[{lo}:{hi}]", tb

    def visit_listcomp(self, n: ListComp) -> tuple[str, Ty]:
        """A tuple of Python's list comprehension (lists are tuples in the generated code)."""
        xs, txs = self.visit(n.iterable)
        elem = txs.elem if isinstance(txs, TList) else TAny()
        saved = self.scope.get(n.var)
        self.scope[n.var] = elem
        try:
            cond = "" if n.cond is None else f" if {self.visit(n.cond)[0]}"
            body, tbody = self.visit(n.body)
        finally:
            if saved is None:
                self.scope.pop(n.var, None)
            else:
                self.scope[n.var] = saved
        return f"tuple([{body} for {pyname(n.var)} in {xs}{cond}])", TList(tbody)

    def visit_count(self, n: Count) -> tuple[str, Ty]:
        raise CompileError("count(...) is compiled with its invariant")

    def visit_call(self, n: Call) -> tuple[str, Ty]:
        args = [self.visit(a) for a in n.args]
        f = n.func
        text = _TEXT_CALLS.get(f)
        if text is not None:
            helper, ty = text
            return f"{helper}(" + ", ".join(s for s, _ in args) + ")", ty
        if f == "len":
            return f"len({args[0][0]})", INT
        if f == "abs":
            return f"abs({args[0][0]})", args[0][1]
        if f in ("min", "max"):
            if len(args) == 1:
                t = args[0][1]
                ty = t.elem if isinstance(t, TList) else TAny()
            else:
                ty = TAny()
                for _, t in args:
                    ty = _join(ty, t)
            return f"_{f}(" + ", ".join(s for s, _ in args) + ")", ty
        if f == "sum":
            t = args[0][1]
            elem = t.elem if isinstance(t, TList) else INT
            ty = REAL if isinstance(elem, TReal) else INT
            return f"_sum({args[0][0]})", ty
        if f == "int":
            return f"_int({args[0][0]})", INT
        if f == "str":
            return f"_str({args[0][0]})", STR
        if f == "matches":
            pattern = n.args[1]
            if not isinstance(pattern, StrLit):
                raise CompileError("matches() needs a string literal pattern")
            return f"_matches({args[0][0]}, {_regex.to_python(pattern.value)!r})", BOOL
        if f == "startswith":
            return f"{args[0][0]}.startswith({args[1][0]})", BOOL
        if f == "endswith":
            return f"{args[0][0]}.endswith({args[1][0]})", BOOL
        if f == "contains":
            return f"({args[1][0]} in {args[0][0]})", BOOL
        if f == "occurrences":
            t = args[0][1]
            if isinstance(t, TList) and _is_real(t.elem):
                return f"_occurrences({args[0][0]}, {args[1][0]})", INT
            return f"{args[0][0]}.count({args[1][0]})", INT
        if f == "sorted":
            return f"tuple(sorted({args[0][0]}))", args[0][1]
        if f == "product":
            t = args[0][1]
            elem = t.elem if isinstance(t, TList) else INT
            return f"_product({args[0][0]})", REAL if isinstance(elem, TReal) else INT
        if f == "reversed":
            return f"tuple(reversed({args[0][0]}))", args[0][1]
        return self._compound_call(f, args)

    @staticmethod
    def _compound_call(f: str, args: list[tuple[str, Ty]]) -> tuple[str, Ty]:
        """``get``, ``keys`` and ``value`` (docs/language.md §6.6-6.7)."""
        t = args[0][1]
        if f == "get":
            value: Ty = t.value if isinstance(t, TDict) else TAny()
            if len(args) == 3:
                return f"{args[0][0]}.get({args[1][0]}, {args[2][0]})", _join(value, args[2][1])
            opt = value if isinstance(value, TOptional) else TOptional(value)
            return f"{args[0][0]}.get({args[1][0]})", opt
        if f == "keys":
            key = t.key if isinstance(t, TDict) else TAny()
            return f"tuple(sorted({args[0][0]}))", TList(key)
        if f == "value":
            return f"_value({args[0][0]})", t.elem if isinstance(t, TOptional) else TAny()
        raise CompileError(f"unknown function {f!r}")
