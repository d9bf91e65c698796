"""Hypothesis strategies for random WELL-TYPED expressions and matching environments.

Differential tests (evaluator vs Python's ``eval``, Z3 encoding vs evaluator, generated
pytest source vs evaluator) need the same thing: random expression trees of
``derivative._ast`` nodes that a type checker would accept, plus values for their free
names.  This module builds them directly by type (never by filtering random trees), so
every draw is useful and shrinks towards small, literal-heavy trees.

API
---

``typed_exprs(ty, vars, depth=3, *, exclude=())``
    A strategy of ``Expr`` of resolved type ``ty`` (``TInt``/``TBool``/``TReal``/``TStr``/
    ``TDate``/``TList``/``TEnum``; refinements are ignored for expressions) whose free
    names are keys of ``vars`` (name -> resolved type), at most ``depth`` operators
    deep.  ``exclude`` names constructs to leave out (see ``FEATURES``), for a back-end
    that does not encode them all, e.g. ``exclude={"sorted", "matches", "dates"}``.
``values_of(ty, *, floats=False)``
    A strategy of runtime values of ``ty`` (``derivative._values`` representation: int,
    bool, Fraction, str, date, tuple, EnumValue).  Ints include zero and negatives,
    sometimes large; dates include both ends of the calendar; ``floats=True`` also draws
    finite floats for ``real`` (as a candidate may return them).  ``TInt(lo, hi)`` and
    ``TStr(pattern)`` respect their refinement.
``envs(vars, *, floats=False)``
    A strategy of ``dict[str, value]`` giving every name in ``vars`` a value.
``exprs_with_envs(ty, vars=DEFAULT_VARS, depth=3, *, exclude=(), floats=False)``
    Both at once: ``(expr, env)``.

What is generated (all of docs/language.md §4 except ``count``, ``result`` and calls of spec
functions): literals of every type (integer literals are non-negative, negatives appear
as unary minus, as the parser produces them), names, ``not - + - * / // %`` (``/`` also
on two ints; ``//``/``%`` also on reals; int/real mixing), ``and or implies iff``,
``if then else``, comparison chains of 1-3 links (order operators on int, real, str,
date, and on lists unless ``list_order`` is excluded; ``==``/``!=`` also on bool, enums
and lists), ``in``/``not in`` on ranges (also ending a chain: ``a < i in LO..HI``),
lists and strings, ``forall``/``exists`` over small ranges, ``all``/``any`` over lists,
indexing and slicing of strings and lists, list comprehensions (with and without a
condition; ``count(C for x in xs)`` as ``len([x for x in xs if C])``), the built-ins ``len
abs min max sum product int str matches startswith endswith contains occurrences sorted
reversed``, ``**`` (exponents small: a literal
from -1 to 5 or ``E % 5``, so sometimes negative, i.e. undefined), the text built-ins
``lower upper strip split join ord chr`` (their string arguments are, half the time,
literals over ``TEXT_ALPHABET``; ``ord``'s often one character ``s[k]``), and date
arithmetic (``date ± int``, ``int + date``, ``date - date``).  Bound variables are
``k``/``m`` (quantifiers) and ``e``/``f`` (generators) or, half the time, an existing
name of the same type, so shadowing is exercised.

``DEFAULT_VARS`` has names of every type (enum ``COLOR``); ``FEATURES`` lists what
``exclude`` accepts.  Import it as ``_exprgen`` (pytest puts ``tests/property`` on the
path) or as ``tests.property._exprgen`` (``python -m pytest`` from the repository).

**Well-typed** means: accepted by ``derivative._typecheck`` with the requested type,
with one deliberate exception kept for the evaluator's and printers' own tests:
``list_order`` (``<``-like comparison of two lists, which Python and the evaluator
define lexicographically but the type checker rejects) is generated unless excluded, so
pass ``exclude={"list_order"}`` wherever the checker's verdict matters.
Quantifier bounds are small literals or ``len(...)`` (``- 1``), so a quantifier never
runs long whatever the environment holds.  ``matches`` uses the fixed ``PATTERNS``,
which mean the same in the spec regex subset and in Python's ``re`` with ``re.ASCII``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from datetime import date
from typing import Final, Literal, TypeAlias

from hypothesis import strategies as st

from derivative import _regex
from derivative._ast import (
    BoolLit,
    Call,
    CompareOp,
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
    Slice,
    StrLit,
    Unary,
    make_binop,
    make_boolop,
)
from derivative._ast import Compare as CompareNode
from derivative._types import (
    BOOL,
    DATE,
    INT,
    REAL,
    STR,
    TBool,
    TDate,
    TEnum,
    TInt,
    TList,
    TReal,
    TStr,
    Ty,
    base,
)
from derivative._values import EnumValue, Value

__all__ = [
    "ALPHABET",
    "COLOR",
    "DEFAULT_VARS",
    "FEATURES",
    "PATTERNS",
    "TEXT_ALPHABET",
    "envs",
    "exprs_with_envs",
    "typed_exprs",
    "values_of",
]

COLOR: Final = TEnum("Color", ("red", "green", "blue"))

DEFAULT_VARS: Final[Mapping[str, Ty]] = {
    "i": INT,
    "j": INT,
    "p": BOOL,
    "q": BOOL,
    "x": REAL,
    "s": STR,
    "t": STR,
    "d": DATE,
    "xs": TList(INT),
    "ys": TList(STR),
    "rs": TList(REAL),
    "c": COLOR,
}
"""A mix of every type, two of the common ones so that binary operators meet names."""

ALPHABET: Final = "ab09 -+_\n\u0663é"
"""Characters of generated strings: digits and the characters where Python's ``int()``
differs from the language's (space, sign, underscore, ARABIC-INDIC DIGIT THREE), a
newline (``.`` does not match it) and a non-ASCII letter."""

TEXT_ALPHABET: Final = "aZAz@[`{ \t\x0b\r,É"
"""Characters of the text built-ins' literal arguments: letters of both cases, the
characters next to ``A-Z``/``a-z`` in ASCII, ASCII white space, a separator and a
non-ASCII capital (which ``lower`` leaves alone)."""

PATTERNS: Final = ("[ab]*", "a+b?", "(ab|0)*", "[0-9]+", ".*9", "[^a]{1,2}", "")

REAL_LITERALS: Final = ("0.5", "0.25", "1.75", "2.5", "0.1", "3.125", "10.5")

FEATURES: Final = frozenset(
    {
        # operators
        "neg", "+", "-", "*", "/", "//", "%", "not", "and", "or", "implies", "iff",
        "if", "compare", "chain", "in_range", "in_list", "in_str", "index",
        # binders
        "quant", "gen",
        # built-ins
        "len", "abs", "min", "max", "sum", "int", "str", "matches", "startswith",
        "endswith", "contains", "occurrences", "sorted",
        # list built-ins of issue 16: slices, comprehensions (and count), product, reversed
        "slice", "listcomp", "product", "reversed",
        # ** and the text built-ins
        "**", "lower", "upper", "strip", "split", "join", "ord", "chr",
        # families
        "dates", "reals", "mixed", "lists", "enums", "list_order",
    }
)  # fmt: skip
"""Names accepted by ``exclude``.  Operators and built-ins by their spelling; ``compare``
is every comparison, ``chain`` chains of 2-3 links; ``dates``/``reals``/``lists``/
``enums`` every expression of that type (as operand, too); ``mixed`` int/real mixing
in arithmetic; ``list_order`` ``<``-like comparison of lists."""

_ORDERED_ELEMS: Final = (INT, REAL, STR, DATE)


# --------------------------------------------------------------------------- values


def values_of(ty: Ty, *, floats: bool = False) -> st.SearchStrategy[Value]:
    """Runtime values of ``ty`` (see the module docstring)."""
    if isinstance(ty, TInt):
        if ty.lo is not None or ty.hi is not None:
            return st.integers(ty.lo, ty.hi)
        return st.one_of(st.integers(-4, 4), st.integers(-30, 30), st.integers(-(10**20), 10**20))
    if isinstance(ty, TBool):
        return st.booleans()
    if isinstance(ty, TReal):
        exact = st.fractions(min_value=-50, max_value=50, max_denominator=12)
        if floats:
            return st.one_of(
                exact,
                st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
            )
        return exact
    if isinstance(ty, TStr):
        if ty.pattern is not None:
            return st.from_regex(_regex.to_python(ty.pattern), fullmatch=True)
        return st.text(ALPHABET, max_size=5)
    if isinstance(ty, TDate):
        edges = st.sampled_from(
            [date.min, date.max, date(1, 1, 2), date(9999, 12, 30), date(2024, 2, 29)]
        )
        return st.one_of(st.dates(), edges)
    if isinstance(ty, TList):
        return st.lists(values_of(ty.elem, floats=floats), max_size=4).map(tuple)
    if isinstance(ty, TEnum):
        name = ty.name
        return st.sampled_from(ty.members).map(lambda m: EnumValue(name, m))
    raise ValueError(f"no values for type {ty.show()}")


def envs(vars: Mapping[str, Ty], *, floats: bool = False) -> st.SearchStrategy[dict[str, Value]]:
    """A value for every name of ``vars``."""
    return st.fixed_dictionaries({n: values_of(t, floats=floats) for n, t in vars.items()})


# --------------------------------------------------------------------------- expressions

_Option = tuple[str, Callable[[], Expr]]
"""(space-separated features it needs, maker)."""

_BinOpName: TypeAlias = Literal["+", "-", "*", "/", "//", "%", "**"]
_BoolOpName: TypeAlias = Literal["and", "or", "implies", "iff"]
_INT_OPS: Final[tuple[_BinOpName, ...]] = ("+", "-", "*", "//", "%")
_REAL_OPS: Final[tuple[_BinOpName, ...]] = ("+", "-", "*", "/", "//", "%")
_MIXED_OPS: Final[tuple[_BinOpName, ...]] = ("+", "-", "*", "/")
_BOOLOPS: Final[tuple[_BoolOpName, ...]] = ("and", "or", "implies", "iff")


def _name(n: str) -> Callable[[], Expr]:
    return lambda: Name(id=n)


def _lit_int(v: int) -> Expr:
    return IntLit(value=v) if v >= 0 else Unary(op="-", operand=IntLit(value=-v))


class _Builder:
    """Draws one expression tree; ``exclude`` switches constructs off."""

    def __init__(self, draw: st.DrawFn, exclude: Collection[str], enums: tuple[TEnum, ...]):
        self.draw = draw
        self.exclude = frozenset(exclude)
        unknown = self.exclude - FEATURES
        if unknown:
            raise ValueError(f"unknown features {sorted(unknown)}; see FEATURES")
        self.enums = enums

    # ------------------------------------------------------------------ helpers

    def on(self, features: str) -> bool:
        """Whether every feature named in the space-separated ``features`` is switched on."""
        return not self.exclude.intersection(features.split())

    def type_on(self, ty: Ty) -> bool:
        if isinstance(ty, TDate):
            return self.on("dates")
        if isinstance(ty, TReal):
            return self.on("reals")
        if isinstance(ty, TEnum):
            return self.on("enums")
        if isinstance(ty, TList):
            return self.on("lists") and self.type_on(ty.elem)
        return True

    def pick(self, options: list[_Option]) -> Expr:
        usable = [make for feature, make in options if self.on(feature)]
        assert usable, "no construct left for this type"
        return self.draw(st.sampled_from(usable))()

    def choose(self, items: list[Ty]) -> Ty:
        return self.draw(st.sampled_from([t for t in items if self.type_on(t)]))

    @staticmethod
    def names(ty: Ty, vars: Mapping[str, Ty]) -> list[str]:
        return [n for n, t in vars.items() if base(t) == ty]

    def list_elems(self, vars: Mapping[str, Ty]) -> list[Ty]:
        lists = [b for b in map(base, vars.values()) if isinstance(b, TList)]
        found = [b.elem for b in lists]
        return [t for t in dict.fromkeys([INT, STR, *found]) if self.type_on(TList(t))]

    # ------------------------------------------------------------------ entry

    def expr(self, ty: Ty, vars: Mapping[str, Ty], depth: int) -> Expr:
        ty = base(ty)
        options = self.leaves(ty, vars)
        if depth > 0:
            options += self.nodes(ty, vars, depth - 1)
        return self.pick(options)

    def leaves(self, ty: Ty, vars: Mapping[str, Ty]) -> list[_Option]:
        d = self.draw
        out: list[_Option] = []
        if ty == INT:
            out.append(("", lambda: _lit_int(d(st.integers(-3, 12)))))
        elif ty == BOOL:
            out.append(("", lambda: BoolLit(value=d(st.booleans()))))
        elif ty == REAL:
            out.append(("", lambda: RealLit(value=d(st.sampled_from(REAL_LITERALS)))))
        elif ty == STR:
            out.append(("", lambda: StrLit(value=d(st.text(ALPHABET, max_size=3)))))
        elif ty == DATE:
            days = st.one_of(st.dates(), st.sampled_from([date.min, date.max, date(2024, 2, 29)]))
            out.append(("", lambda: DateLit(value=d(days).isoformat())))
        elif isinstance(ty, TEnum):
            enum = ty
            out.append(
                ("", lambda: EnumMember(enum=enum.name, member=d(st.sampled_from(enum.members))))
            )
        elif isinstance(ty, TList):
            elem = ty.elem
            out.append(
                (
                    "",
                    lambda: ListLit(
                        items=tuple(self.expr(elem, vars, 0) for _ in range(d(st.integers(0, 2))))
                    ),
                )
            )
        else:
            raise ValueError(f"cannot generate expressions of type {ty.show()}")
        out += [("", _name(n)) for n in self.names(ty, vars)]
        return out

    # ------------------------------------------------------------------ compound

    def nodes(self, ty: Ty, vars: Mapping[str, Ty], depth: int) -> list[_Option]:
        def sub(t: Ty) -> Expr:
            return self.expr(t, vars, depth)

        def binop(op: _BinOpName, lt: Ty, rt: Ty) -> Callable[[], Expr]:
            """``lt op rt``; for ``+``/``*`` a run of two to four operands, as the parser
            builds them (a later operand continues from the running type: ``d + 1 + 2``)."""

            def make() -> Expr:
                more = self.draw(st.integers(0, 2)) if op in ("+", "*") else 0
                extra = INT if DATE in (lt, rt) else rt
                operands = [sub(lt), sub(rt), *(sub(extra) for _ in range(more))]
                return make_binop(op, operands)

            return make

        def boolop(op: _BoolOpName) -> Callable[[], Expr]:
            def make() -> Expr:
                more = self.draw(st.integers(0, 2)) if op in ("and", "or") else 0
                return make_boolop(op, [sub(BOOL) for _ in range(2 + more)])

            return make

        def call(func: str, *arg_types: Ty) -> Callable[[], Expr]:
            return lambda: Call(func=func, args=tuple(sub(t) for t in arg_types))

        def cond() -> Callable[[], Expr]:
            return lambda: IfExpr(cond=sub(BOOL), then=sub(ty), orelse=sub(ty))

        out: list[_Option] = [("if", cond())]
        d = self.draw
        if ty == INT:
            out += [
                ("neg", lambda: Unary(op="-", operand=sub(INT))),
                *[(op, binop(op, INT, INT)) for op in _INT_OPS],
                ("len", lambda: Call(func="len", args=(self.sized(vars, depth),))),
                ("abs", call("abs", INT)),
                ("min", self.extreme("min", INT, vars, depth)),
                ("max", self.extreme("max", INT, vars, depth)),
                ("sum lists", call("sum", TList(INT))),
                ("int", call("int", STR)),
                ("index lists", lambda: Index(base=sub(TList(INT)), index=sub(INT))),
                ("occurrences lists", self.occurrences(vars, depth)),
                ("product lists", call("product", TList(INT))),
                ("listcomp len lists", lambda: self.count(vars, depth)),
                ("**", lambda: self.power(INT, vars, depth)),
                ("ord", lambda: Call(func="ord", args=(self.char(vars, depth),))),
            ]
            out.append(("- dates", binop("-", DATE, DATE)))
        elif ty == REAL:
            out += [
                ("neg", lambda: Unary(op="-", operand=sub(REAL))),
                *[(op, binop(op, REAL, REAL)) for op in _REAL_OPS],
                ("/", binop("/", INT, INT)),
                ("abs", call("abs", REAL)),
                ("min", self.extreme("min", REAL, vars, depth)),
                ("max", self.extreme("max", REAL, vars, depth)),
                ("sum lists", call("sum", TList(REAL))),
                ("product lists", call("product", TList(REAL))),
                ("index lists", lambda: Index(base=sub(TList(REAL)), index=sub(INT))),
                ("**", lambda: self.power(REAL, vars, depth)),
            ]
            for mop in _MIXED_OPS:
                out.append((f"{mop} mixed", binop(mop, INT, REAL)))
                out.append((f"{mop} mixed", binop(mop, REAL, INT)))
        elif ty == BOOL:
            out += [
                ("not", lambda: Unary(op="not", operand=sub(BOOL))),
                *[(op, boolop(op)) for op in _BOOLOPS],
                ("compare", lambda: self.compare(vars, depth)),
                ("in_range", lambda: self.in_range(vars, depth)),
                ("in_list lists", lambda: self.in_list(vars, depth)),
                ("in_str", lambda: self.membership(sub(STR), sub(STR))),
                ("quant", lambda: self.quant(vars, depth)),
                ("gen lists", lambda: self.gen(vars, depth)),
                ("matches", lambda: Call(
                    func="matches", args=(sub(STR), StrLit(value=d(st.sampled_from(PATTERNS))))
                )),
                ("startswith", call("startswith", STR, STR)),
                ("endswith", call("endswith", STR, STR)),
                ("contains", call("contains", STR, STR)),
            ]  # fmt: skip
        elif ty == STR:
            out += [
                ("+", binop("+", STR, STR)),
                ("str", call("str", INT)),
                ("index", lambda: Index(base=sub(STR), index=sub(INT))),
                ("slice", lambda: self.slice(sub(STR), vars, depth)),
                ("index lists", lambda: Index(base=sub(TList(STR)), index=sub(INT))),
                ("min", self.extreme("min", STR, vars, depth)),
                ("max", self.extreme("max", STR, vars, depth)),
                *[(f, self.text_call(f, vars, depth)) for f in ("lower", "upper", "strip")],
                ("join lists", lambda: Call(
                    func="join", args=(self.text(vars, depth), sub(TList(STR)))
                )),
                ("chr", call("chr", INT)),
            ]  # fmt: skip
        elif ty == DATE:
            out += [
                ("+", binop("+", DATE, INT)),
                ("+", binop("+", INT, DATE)),
                ("-", binop("-", DATE, INT)),
                ("min", self.extreme("min", DATE, vars, depth)),
                ("max", self.extreme("max", DATE, vars, depth)),
            ]
        elif isinstance(ty, TList):
            elem = ty.elem
            out += [
                ("+", binop("+", ty, ty)),
                ("", lambda: ListLit(items=tuple(sub(elem) for _ in range(d(st.integers(1, 3)))))),
            ]
            if elem in _ORDERED_ELEMS:
                out.append(("sorted", call("sorted", ty)))
            out += [
                ("slice", lambda: self.slice(sub(ty), vars, depth)),
                ("reversed", call("reversed", ty)),
                ("listcomp", lambda: self.listcomp(elem, vars, depth)),
            ]
            if elem == STR:
                out.append(("split", lambda: Call(
                    func="split", args=(self.text(vars, depth), self.separator(vars, depth))
                )))  # fmt: skip
        return out

    def slice(self, base_expr: Expr, vars: Mapping[str, Ty], depth: int) -> Expr:
        """``base[lo:hi]`` with either bound left out a third of the time each."""
        lo, hi = (
            None if self.draw(st.integers(0, 2)) == 0 else self.expr(INT, vars, depth)
            for _ in range(2)
        )
        return Slice(base=base_expr, lo=lo, hi=hi)

    def listcomp(self, item: Ty, vars: Mapping[str, Ty], depth: int) -> Expr:
        """``[E for x in xs]`` or ``[E for x in xs if C]`` with items of type ``item``."""
        elem = self.choose(self.list_elems(vars))
        iterable = self.expr(TList(elem), vars, depth)
        var = self.binder(("e", "f"), elem, vars)
        inner = {**vars, var: elem}
        cond = self.expr(BOOL, inner, depth) if self.draw(st.booleans()) else None
        return ListComp(body=self.expr(item, inner, depth), var=var, iterable=iterable, cond=cond)

    def count(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        """``count(C for x in xs)`` as the parser builds it: ``len([x for x in xs if C])``."""
        elem = self.choose(self.list_elems(vars))
        iterable = self.expr(TList(elem), vars, depth)
        var = self.binder(("e", "f"), elem, vars)
        cond = self.expr(BOOL, {**vars, var: elem}, depth)
        keep = ListComp(body=Name(id=var), var=var, iterable=iterable, cond=cond)
        return Call(func="len", args=(keep,))

    def text(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        """A string argument of a text built-in: any string expression, or as often a
        literal over ``TEXT_ALPHABET`` (upper case and white space are rare otherwise)."""
        if self.draw(st.booleans()):
            return StrLit(value=self.draw(st.text(TEXT_ALPHABET, max_size=4)))
        return self.expr(STR, vars, depth)

    def separator(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        """``split``'s separator: often one that occurs in generated strings."""
        if self.draw(st.booleans()):
            return StrLit(value=self.draw(st.sampled_from([",", " ", "a", "ab"])))
        return self.text(vars, depth)

    def text_call(self, func: str, vars: Mapping[str, Ty], depth: int) -> Callable[[], Expr]:
        return lambda: Call(func=func, args=(self.text(vars, depth),))

    def char(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        """``ord``'s argument: often one character ``s[k]``, else any string."""
        if self.on("index") and self.draw(st.booleans()):
            k = _lit_int(self.draw(st.integers(0, 2)))
            return Index(base=self.text(vars, depth), index=k)
        return self.text(vars, depth)

    def power(self, ty: Ty, vars: Mapping[str, Ty], depth: int) -> Expr:
        """``base ** n`` with a small exponent: a literal in -1..5, or ``E % 5``."""
        if self.on("%") and self.draw(st.booleans()):
            n = make_binop("%", (self.expr(INT, vars, depth), IntLit(value=5)))
        else:
            n = _lit_int(self.draw(st.integers(-1, 5)))
        return make_binop("**", (self.expr(ty, vars, depth), n))

    def sized(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        """A string or list expression (for ``len``)."""
        ty = self.choose([STR, *(TList(e) for e in self.list_elems(vars))])
        return self.expr(ty, vars, depth)

    def extreme(self, func: str, ty: Ty, vars: Mapping[str, Ty], depth: int) -> Callable[[], Expr]:
        def make() -> Expr:
            if self.on("lists") and self.draw(st.booleans()):
                return Call(func=func, args=(self.expr(TList(ty), vars, depth),))
            n = self.draw(st.integers(2, 3))
            return Call(func=func, args=tuple(self.expr(ty, vars, depth) for _ in range(n)))

        return make

    def occurrences(self, vars: Mapping[str, Ty], depth: int) -> Callable[[], Expr]:
        def make() -> Expr:
            elem = self.choose(self.list_elems(vars))
            return Call(
                func="occurrences",
                args=(self.expr(TList(elem), vars, depth), self.expr(elem, vars, depth)),
            )

        return make

    @staticmethod
    def membership(item: Expr, container: Expr, negate: bool = False) -> Expr:
        return CompareNode(ops=("not in" if negate else "in",), operands=(item, container))

    def compare(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        ordered = [t for t in _ORDERED_ELEMS if self.type_on(t)]
        eq_only: list[Ty] = [BOOL, *self.enums, *(TList(e) for e in self.list_elems(vars))]
        eq_only = [t for t in eq_only if self.type_on(t)]
        ty = self.choose(ordered + eq_only)
        if ty in ordered or (
            self.on("list_order") and isinstance(ty, TList) and ty.elem in ordered
        ):
            allowed: tuple[CompareOp, ...] = ("==", "!=", "<", "<=", ">", ">=")
        else:
            allowed = ("==", "!=")
        links = self.draw(st.integers(1, 3 if self.on("chain") else 1))
        ops = tuple(self.draw(st.sampled_from(allowed)) for _ in range(links))
        operands = tuple(self.expr(ty, vars, depth) for _ in range(links + 1))
        return CompareNode(ops=ops, operands=operands)

    def in_range(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        negate = self.draw(st.booleans())
        rng = Range(lo=self.expr(INT, vars, depth), hi=self.expr(INT, vars, depth))
        item = self.expr(INT, vars, depth)
        if self.on("chain") and self.draw(st.booleans()):
            # a chain ending in a range: ``A <= i in LO..HI``
            first = self.expr(INT, vars, depth)
            op: CompareOp = self.draw(st.sampled_from(["<", "<=", "==", "!="]))
            return CompareNode(ops=(op, "not in" if negate else "in"), operands=(first, item, rng))
        return self.membership(item, rng, negate)

    def in_list(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        elem = self.choose(self.list_elems(vars))
        return self.membership(
            self.expr(elem, vars, depth),
            self.expr(TList(elem), vars, depth),
            self.draw(st.booleans()),
        )

    def bound(self, vars: Mapping[str, Ty]) -> Expr:
        """A quantifier bound that stays small whatever the environment holds."""
        choice = self.draw(st.integers(0, 2))
        if choice == 0 or not self.on("len"):
            return _lit_int(self.draw(st.integers(-2, 4)))
        sized = [n for n, t in vars.items() if base(t) == STR or isinstance(base(t), TList)]
        arg: Expr = Name(id=self.draw(st.sampled_from(sized))) if sized else StrLit(value="ab")
        length = Call(func="len", args=(arg,))
        if choice == 1 or not self.on("-"):
            return length
        return make_binop("-", (length, IntLit(value=1)))

    def binder(self, fresh: tuple[str, str], ty: Ty, vars: Mapping[str, Ty]) -> str:
        """A fresh name or, as often, one already visible with the same type (shadowing)."""
        names = self.names(ty, vars)
        shadow: bool = bool(names) and self.draw(st.booleans())
        if shadow:
            return self.draw(st.sampled_from(names))
        return self.draw(st.sampled_from(fresh))

    def quant(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        var = self.binder(("k", "m"), INT, vars)
        lo, hi = self.bound(vars), self.bound(vars)
        body = self.expr(BOOL, {**vars, var: INT}, depth)
        kind = self.draw(st.sampled_from(["forall", "exists"]))
        return Quantifier(quantifier=kind, var=var, lo=lo, hi=hi, body=body)

    def gen(self, vars: Mapping[str, Ty], depth: int) -> Expr:
        elem = self.choose(self.list_elems(vars))
        iterable = self.expr(TList(elem), vars, depth)
        var = self.binder(("e", "f"), elem, vars)
        body = self.expr(BOOL, {**vars, var: elem}, depth)
        func = self.draw(st.sampled_from(["all", "any"]))
        return Generator(func=func, body=body, var=var, iterable=iterable)


def _enums_in(vars: Mapping[str, Ty]) -> tuple[TEnum, ...]:
    found: list[TEnum] = []

    def visit(t: Ty) -> None:
        if isinstance(t, TEnum) and t not in found:
            found.append(t)
        elif isinstance(t, TList):
            visit(t.elem)

    for t in vars.values():
        visit(t)
    return tuple(found)


def typed_exprs(
    ty: Ty,
    vars: Mapping[str, Ty] = DEFAULT_VARS,
    depth: int = 3,
    *,
    exclude: Collection[str] = (),
) -> st.SearchStrategy[Expr]:
    """Well-typed expressions of type ``ty`` over the names in ``vars`` (module docstring)."""
    vars = dict(vars)
    enums = _enums_in(vars)
    target = base(ty)
    if isinstance(target, TEnum) and target not in enums:
        enums += (target,)

    @st.composite
    def build(draw: st.DrawFn) -> Expr:
        return _Builder(draw, exclude, enums).expr(ty, vars, depth)

    return build()


def exprs_with_envs(
    ty: Ty,
    vars: Mapping[str, Ty] = DEFAULT_VARS,
    depth: int = 3,
    *,
    exclude: Collection[str] = (),
    floats: bool = False,
) -> st.SearchStrategy[tuple[Expr, dict[str, Value]]]:
    """``(expr, env)``: a well-typed expression and a value for every name in ``vars``."""
    return st.tuples(typed_exprs(ty, vars, depth, exclude=exclude), envs(vars, floats=floats))
