"""The SMT-LIB 2.6 printer: a certificate's core as a script any SMT solver can re-check.

The printer is the third reading of the AST (ARCHITECTURE.md §2), next to the Z3
encoding and the evaluator, and it must mean exactly what the evaluator means
(LANGUAGE.md §4).  It is written independently of the solver package on purpose: the
certificate checker re-encodes a core with this module and compares the text, so the
certificate never relies on the code that found the conflict.

What a core member asserts: that its expression is *defined and true*.  Every
expression is therefore encoded as a pair of SMT terms, its definedness ``d`` and its
value ``v``, built compositionally with Python's left-to-right short-circuiting:

- ``a and b``: ``d = d_a & (!v_a | d_b)``; ``or`` and ``implies`` alike; ``iff`` and
  arithmetic need both sides; ``if`` needs the condition and the chosen branch;
- comparison chains stop at the first false link, so a later operand only needs to
  be defined when every earlier link held;
- ``/ // %`` need a non-zero divisor, ``xs[i]`` needs ``0 <= i < len(xs)``, ``int(s)``
  needs ``s`` in ``[0-9]+``, date arithmetic must stay within 0001-01-01..9999-12-31,
  ``min``/``max`` of a list need a non-empty list;
- ``forall``/``exists``/``all``/``any`` evaluate their body in order and stop at the
  first deciding value, so they are defined exactly when every undefined body is
  preceded by a deciding one (encoded with a nested quantifier, only when the body
  can be undefined at all).

Python semantics that SMT-LIB does not share are spelt out: SMT-LIB ``div``/``mod``
are Euclidean, so ``//`` and ``%`` are helper functions that flip signs for a
negative divisor; dates are ``Int`` ordinals (``date.toordinal``); enums are
datatypes whose constructors are ``Enum.member``; a declared date variable gets an
unnamed assertion that it is a calendar day (its type's domain, not a core member);
lists are sequences (the solvers'
common extension); ``sum``, ``min``/``max`` of a list, ``occurrences`` and ``sorted``
are recursive functions (``define-fun-rec``).  Constructs without a faithful
encoding (``count``, ordering of lists, ``str`` of a bool is fine but of a real is
not) raise ``EncodingError`` rather than approximate.

The output is deterministic: the same core and scope give the same text, byte for
byte, which is what lets the checker compare scripts textually.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

from derivative import _regex
from derivative._ast import (
    BinOp,
    BoolOp,
    Call,
    Compare,
    DateLit,
    EnumMember,
    Expr,
    Generator,
    IfExpr,
    Index,
    IntLit,
    ListLit,
    Name,
    Quantifier,
    Range,
    RealLit,
    StrLit,
    Unary,
)
from derivative._builtins import takes
from derivative._errors import DerivativeError
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
    TReal,
    TStr,
    Ty,
)
from derivative._types import join_base as _join
from derivative._values import EnumValue, Value

__all__ = [
    "MAX_DATE_ORDINAL",
    "MIN_DATE_ORDINAL",
    "CoreScope",
    "EncodingError",
    "SmtEncoder",
    "SmtTerm",
    "encode_script",
    "label_symbol",
    "regex_term",
    "sort_of",
    "string_literal",
    "symbol",
    "value_term",
]

MIN_DATE_ORDINAL: Final = _dt.date.min.toordinal()
MAX_DATE_ORDINAL: Final = _dt.date.max.toordinal()
MAX_CHAR: Final = 0x2FFFF


class EncodingError(DerivativeError):
    """The core uses a construct this printer cannot encode faithfully."""


# --------------------------------------------------------------------------- symbols

# Words that SMT-LIB reserves or that z3/cvc5 refuse to redeclare (measured: declaring
# each as an Int constant), plus theory function names without a dot.
_RESERVED: Final = frozenset(
    (
        "_",
        "!",
        "as",
        "let",
        "exists",
        "forall",
        "match",
        "par",
        "NUMERAL",
        "DECIMAL",
        "STRING",
        "BINARY",
        "HEXADECIMAL",
        "and",
        "or",
        "not",
        "xor",
        "ite",
        "distinct",
        "true",
        "false",
        "abs",
        "div",
        "mod",
        "rem",
        "to_real",
        "to_int",
        "is_int",
        "select",
        "store",
        "const",
        "concat",
        "extract",
        "repeat",
        "bag",
        "tuple",
        "fp",
        "sqrt",
        "exp",
        "sin",
        "cos",
        "tan",
        "arcsin",
        "arccos",
        "arctan",
        "arcsec",
        "arccsc",
        "arccot",
        "sbv_to_int",
        "ubv_to_int",
        "int_to_bv",
        "int2bv",
        "bv2int",
        "bv2nat",
        "nat2bv",
        "iand",
        "pow2",
        "RNA",
        "RNE",
        "RTN",
        "RTP",
        "RTZ",
        "roundNearestTiesToEven",
        "roundNearestTiesToAway",
        "roundTowardPositive",
        "roundTowardNegative",
        "roundTowardZero",
        "Int",
        "Real",
        "Bool",
        "String",
        "Seq",
        "Array",
        "RegLan",
        "result",
    )
)
_THEORY_PREFIXES: Final = frozenset(
    {"re", "str", "seq", "int", "real", "fp", "bv", "set", "bag", "rel", "table",
     "char", "tuple", "ff", "nullable", "array", "py"}
)  # fmt: skip
_SIMPLE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_LABEL_OK: Final = re.compile(r"[^|\\\x00-\x1f\x7f]+")


def _quote(text: str) -> str:
    if not _LABEL_OK.fullmatch(text):
        raise EncodingError(f"{text!r} cannot be written as an SMT-LIB symbol")
    return f"|{text}|"


def symbol(name: str) -> str:
    """The SMT symbol of a spec name (param, const, bound variable, enum).

    A name is used as it is unless SMT-LIB or a solver reserves it (``abs``, ``div``,
    ``and`` ...) or it starts like a theory's own symbols (``bv...``); such a name
    becomes ``|name'|``: a spec name never contains ``'``, so no two names meet.
    """
    if not _SIMPLE.fullmatch(name):
        raise EncodingError(f"{name!r} is not a spec name")
    if name in _RESERVED or name.startswith("bv"):
        return f"|{name}'|"
    return name


def constructor_symbol(enum: str, member: str) -> str:
    """``Enum.member`` as an SMT constructor (quoted away from theory prefixes like ``re.``)."""
    symbol(enum)
    symbol(member)
    if enum.lower() in _THEORY_PREFIXES:
        return f"|{enum}.{member}'|"
    return f"{enum}.{member}"


def label_symbol(ident: str, taken: Iterable[str] = ()) -> str:
    """The ``:named`` label of an obligation id: ``|id|``, or ``|id!label|`` if that is taken."""
    plain = _quote(ident)
    bare = ident
    if (
        bare in _RESERVED
        or bare in set(taken)
        or bare.split(".")[0].lower() in {"re", "str", "seq"}
    ):
        return _quote(ident + "!label")
    return plain


# --------------------------------------------------------------------------- literals


def string_literal(text: str) -> str:
    """An SMT-LIB 2.6 string literal: printable ASCII as is, ``"`` doubled, the rest ``\\u{..}``.

    Backslashes are escaped too (``\\u{5c}``) so that a spec string containing ``\\u{41}``
    stays six characters and is not read back as ``A``.
    """
    out = ['"']
    for ch in text:
        c = ord(ch)
        if c > MAX_CHAR:
            raise EncodingError(f"character U+{c:X} is beyond U+2FFFF, the SMT-LIB alphabet")
        if ch == '"':
            out.append('""')
        elif 0x20 <= c <= 0x7E and ch != "\\":
            out.append(ch)
        else:
            out.append(f"\\u{{{c:x}}}")
    out.append('"')
    return "".join(out)


def int_term(n: int) -> str:
    return str(n) if n >= 0 else f"(- {-n})"


def _decimal(n: int, d: int) -> str | None:
    """``n/d`` (d > 0, n >= 0) as an exact decimal numeral, if it has one."""
    k = d
    twos = fives = 0
    while k % 2 == 0:
        k //= 2
        twos += 1
    while k % 5 == 0:
        k //= 5
        fives += 1
    if k != 1:
        return None
    places = max(twos, fives, 1)
    scaled = n * 10**places // d
    digits = str(scaled).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}"


def real_term(q: Fraction) -> str:
    """An exact real: a decimal numeral where one exists, else ``(/ p.0 q.0)``."""
    a = abs(q)
    text = _decimal(a.numerator, a.denominator)
    if text is None:
        text = f"(/ {a.numerator}.0 {a.denominator}.0)"
    return text if q >= 0 else f"(- {text})"


def date_ordinal(text: str) -> int:
    return _dt.date.fromisoformat(text).toordinal()


# --------------------------------------------------------------------------- sorts


def sort_of(ty: Ty) -> str:
    """The SMT sort of a resolved type; ``list[any]`` (only ``[]``) defaults to ``Int``."""
    if isinstance(ty, (TInt, TDate)):
        return "Int"
    if isinstance(ty, TBool):
        return "Bool"
    if isinstance(ty, TReal):
        return "Real"
    if isinstance(ty, TStr):
        return "String"
    if isinstance(ty, TList):
        return f"(Seq {sort_of(ty.elem)})"
    if isinstance(ty, TEnum):
        return symbol(ty.name)
    if isinstance(ty, TAny):
        return "Int"
    raise EncodingError(f"values of type {ty.show()} have no SMT-LIB sort")


def _plain(ty: Ty) -> Ty:
    """The type without refinements (ranges and patterns say nothing about the sort)."""
    if isinstance(ty, TInt):
        return INT
    if isinstance(ty, TStr):
        return STR
    if isinstance(ty, TList):
        return TList(_plain(ty.elem))
    return ty


def _contains_enum(ty: Ty, out: set[str]) -> None:
    if isinstance(ty, TEnum):
        out.add(ty.name)
    elif isinstance(ty, TList):
        _contains_enum(ty.elem, out)


def value_term(value: object, ty: Ty) -> str:
    """A runtime value of type ``ty`` as a closed SMT term."""
    ty = _plain(ty)
    if isinstance(ty, TBool):
        if not isinstance(value, bool):
            raise EncodingError(f"{value!r} is not a bool")
        return "true" if value else "false"
    if isinstance(ty, TInt):
        if isinstance(value, bool) or not isinstance(value, int):
            raise EncodingError(f"{value!r} is not an int")
        return int_term(value)
    if isinstance(ty, TReal):
        if isinstance(value, bool) or not isinstance(value, (int, Fraction, float)):
            raise EncodingError(f"{value!r} is not a real")
        return real_term(Fraction(value))
    if isinstance(ty, TStr):
        if not isinstance(value, str):
            raise EncodingError(f"{value!r} is not a str")
        return string_literal(value)
    if isinstance(ty, TDate):
        if not isinstance(value, _dt.date) or isinstance(value, _dt.datetime):
            raise EncodingError(f"{value!r} is not a date")
        return int_term(value.toordinal())
    if isinstance(ty, TEnum):
        if not isinstance(value, EnumValue) or value.enum != ty.name:
            raise EncodingError(f"{value!r} is not a member of {ty.name}")
        if value.member not in ty.members:
            raise EncodingError(f"{ty.name} has no member {value.member}")
        return constructor_symbol(ty.name, value.member)
    if isinstance(ty, TList):
        if not isinstance(value, tuple):
            raise EncodingError(f"{value!r} is not a list")
        if not value:
            return f"(as seq.empty {sort_of(ty)})"
        units = [f"(seq.unit {value_term(v, ty.elem)})" for v in value]
        return units[0] if len(units) == 1 else f"(seq.++ {' '.join(units)})"
    raise EncodingError(f"values of type {ty.show()} cannot be written in SMT-LIB")


# --------------------------------------------------------------------------- regexes


def _re_char(c: int) -> str:
    return string_literal(chr(c))


def _re_ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = [
        f"(str.to_re {_re_char(lo)})" if lo == hi else f"(re.range {_re_char(lo)} {_re_char(hi)})"
        for lo, hi in ranges
    ]
    if not parts:
        return "re.none"
    return parts[0] if len(parts) == 1 else f"(re.union {' '.join(parts)})"


def regex_term(node: _regex.RNode) -> str:
    """The SMT-LIB regular expression of a spec regex tree (a full match via ``str.in_re``)."""
    if isinstance(node, _regex.REmpty):
        return '(str.to_re "")'
    if isinstance(node, _regex.RChar):
        return f"(str.to_re {string_literal(node.char)})"
    if isinstance(node, _regex.RAny):
        return '(re.diff re.allchar (str.to_re "\\u{a}"))'
    if isinstance(node, _regex.RClass):
        inside = _re_ranges(node.ranges)
        return f"(re.diff re.allchar {inside})" if node.negated else inside
    if isinstance(node, _regex.RConcat):
        parts: list[str] = []
        run = ""
        for item in node.items:
            if isinstance(item, _regex.RChar):
                run += item.char
                continue
            if run:
                parts.append(f"(str.to_re {string_literal(run)})")
                run = ""
            parts.append(regex_term(item))
        if run:
            parts.append(f"(str.to_re {string_literal(run)})")
        return parts[0] if len(parts) == 1 else f"(re.++ {' '.join(parts)})"
    if isinstance(node, _regex.RAlt):
        return f"(re.union {' '.join(regex_term(o) for o in node.options)})"
    if isinstance(node, _regex.RRepeat):
        inner = regex_term(node.node)
        lo, hi = node.min, node.max
        if (lo, hi) == (0, None):
            return f"(re.* {inner})"
        if (lo, hi) == (1, None):
            return f"(re.+ {inner})"
        if (lo, hi) == (0, 1):
            return f"(re.opt {inner})"
        if hi is None:
            return f"(re.++ ((_ re.^ {lo}) {inner}) (re.* {inner}))"
        if lo == hi:
            return f"((_ re.^ {lo}) {inner})"
        return f"((_ re.loop {lo} {hi}) {inner})"
    raise EncodingError(f"unknown regex node {node!r}")


# --------------------------------------------------------------------------- term helpers


def _and(*terms: str) -> str:
    out: list[str] = []
    for t in terms:
        if t == "false":
            return "false"
        if t != "true" and t not in out:
            out.append(t)
    if not out:
        return "true"
    return out[0] if len(out) == 1 else f"(and {' '.join(out)})"


def _or(*terms: str) -> str:
    out: list[str] = []
    for t in terms:
        if t == "true":
            return "true"
        if t != "false" and t not in out:
            out.append(t)
    if not out:
        return "false"
    return out[0] if len(out) == 1 else f"(or {' '.join(out)})"


def _not(t: str) -> str:
    if t == "true":
        return "false"
    if t == "false":
        return "true"
    return f"(not {t})"


def _implies(a: str, b: str) -> str:
    if a == "true":
        return b
    if a == "false" or b == "true":
        return "true"
    return f"(=> {a} {b})"


def _ite(c: str, a: str, b: str) -> str:
    if a == b:
        return a
    if c == "true":
        return a
    if c == "false":
        return b
    return f"(ite {c} {a} {b})"


@dataclass(frozen=True)
class SmtTerm:
    """An encoded expression: ``defined`` and ``value`` SMT terms, and its type."""

    defined: str
    value: str
    ty: Ty

    @property
    def holds(self) -> str:
        """``defined and value``: what a core member asserts."""
        return _and(self.defined, self.value)


# --------------------------------------------------------------------------- scope


@dataclass(frozen=True)
class CoreScope:
    """What the printer knows about the names a core uses.

    ``variables``: the free decision variables (params; a function's inputs) with
    their types; those in ``fixed`` (a witness input) are defined to that value,
    the others declared.  ``consts`` are defined by value.  ``result`` is the type of
    ``result`` when the core is about one function, and ``function`` that function's
    name, whose calls (in an ``example``) stand for ``result``.  ``inputs`` are the
    function's parameter names in call order: a call ``f(a1, ..., an)`` is the call
    the script is about only where every parameter equals its argument, so the call
    is *defined* only there (``(= p_i a_i)`` joins its definedness).  That is how an
    example pins the free inputs of a ``contradicting_example`` script.
    """

    variables: Mapping[str, Ty] = field(default_factory=dict)
    fixed: Mapping[str, Value] = field(default_factory=dict)
    consts: Mapping[str, tuple[Ty, Value]] = field(default_factory=dict)
    enums: Mapping[str, TEnum] = field(default_factory=dict)
    result: Ty | None = None
    function: str | None = None
    inputs: Sequence[str] = ()


# --------------------------------------------------------------------------- helpers (aux)

_PY_DIV: Final = (
    "(define-fun |py.div| ((a Int) (b Int)) Int (ite (> b 0) (div a b) (div (- a) (- b))))"
)
_PY_MOD: Final = (
    "(define-fun |py.mod| ((a Int) (b Int)) Int (ite (> b 0) (mod a b) (- (mod (- a) (- b)))))"
)
_PY_RDIV: Final = "(define-fun |py.rdiv| ((a Real) (b Real)) Real (to_real (to_int (/ a b))))"
_PY_RMOD: Final = (
    "(define-fun |py.rmod| ((a Real) (b Real)) Real (- a (* b (to_real (to_int (/ a b))))))"
)


def _sort_tag(sort: str) -> str:
    """A sort as part of a helper's name: ``Int``, ``(Seq Int)`` -> ``Seq.Int``."""
    return (
        sort.replace("(", "").replace(")", "").replace(" ", ".").replace("|", "").replace("'", "")
    )


def _le(sort: str, a: str, b: str) -> str:
    return f"(str.<= {a} {b})" if sort == "String" else f"(<= {a} {b})"


def _lt(sort: str, a: str, b: str) -> str:
    return f"(str.< {a} {b})" if sort == "String" else f"(< {a} {b})"


def _aux_definitions(key: tuple[str, str]) -> list[str]:
    """The definitions a helper needs (itself last), for one element sort.

    The recursive helpers walk the sequence by index (``xs``, ``i``) rather than by
    ``seq.extract``: solvers unfold them far more cheaply that way.
    """
    kind, sort = key
    tag = _sort_tag(sort)
    seq = f"(Seq {sort})"
    if kind == "div":
        return [_PY_DIV]
    if kind == "mod":
        return [_PY_MOD]
    if kind == "rdiv":
        return [_PY_RDIV]
    if kind == "rmod":
        return [_PY_RMOD]
    done = "(>= i (seq.len xs))"
    head = "(seq.nth xs i)"
    nxt = "(+ i 1)"
    if kind == "sum":
        zero = "0.0" if sort == "Real" else "0"
        return [
            f"(define-fun-rec |py.sum.{tag}| ((xs {seq}) (i Int)) {sort} "
            f"(ite {done} {zero} (+ {head} (|py.sum.{tag}| xs {nxt}))))"
        ]
    if kind in ("max", "min"):
        better = _lt(sort, "m", head) if kind == "max" else _lt(sort, head, "m")
        return [
            f"(define-fun-rec |py.{kind}.{tag}| ((xs {seq}) (i Int)) {sort} "
            f"(ite (>= {nxt} (seq.len xs)) {head} "
            f"(let ((m (|py.{kind}.{tag}| xs {nxt}))) (ite {better} {head} m))))"
        ]
    if kind == "occ":
        return [
            f"(define-fun-rec |py.occurrences.{tag}| ((xs {seq}) (x {sort}) (i Int)) Int "
            f"(ite {done} 0 (+ (ite (= {head} x) 1 0) (|py.occurrences.{tag}| xs x {nxt}))))"
        ]
    if kind == "sorted":
        return [
            f"(define-fun-rec |py.insert.{tag}| ((x {sort}) (xs {seq}) (i Int)) {seq} "
            f"(ite {done} (seq.unit x) "
            f"(ite {_le(sort, 'x', head)} "
            f"(seq.++ (seq.unit x) (seq.extract xs i (- (seq.len xs) i))) "
            f"(seq.++ (seq.unit {head}) (|py.insert.{tag}| x xs {nxt})))))",
            f"(define-fun-rec |py.sorted.{tag}| ((xs {seq}) (i Int)) {seq} "
            f"(ite {done} (as seq.empty {seq}) "
            f"(|py.insert.{tag}| {head} (|py.sorted.{tag}| xs {nxt}) 0)))",
        ]
    raise EncodingError(f"unknown helper {kind}")


_AUX_ORDER: Final = ("div", "mod", "rdiv", "rmod", "sum", "max", "min", "occ", "sorted")


# --------------------------------------------------------------------------- the encoder

_STRING_TESTS: Final = {"startswith": "str.prefixof", "endswith": "str.suffixof"}
_DIGITS: Final = '(re.+ (re.range "0" "9"))'


class SmtEncoder:
    """Encodes expressions of one core and assembles the script around them.

    Use ``term(expr)`` for each expression (it records which names, enums and
    helpers are needed), then ``script(assertions)`` for the whole text.
    """

    def __init__(self, scope: CoreScope) -> None:
        self.scope = scope
        self.used_vars: set[str] = set()
        self.used_consts: set[str] = set()
        self.used_enums: set[str] = set()
        self.used_result = False
        self.aux: set[tuple[str, str]] = set()
        self._fresh = 0

    # ------------------------------------------------------------------ typing

    def type_of(self, e: Expr, bound: Mapping[str, tuple[str, Ty]]) -> Ty:
        """The resolved type of ``e`` (unrefined), from the scope and bound variables."""
        k = e.kind
        if k == "int":
            return INT
        if k == "real":
            return REAL
        if k == "str":
            return STR
        if k == "bool":
            return BOOL
        if k == "date":
            return DATE
        if k == "list":
            assert isinstance(e, ListLit)
            elem: Ty = TAny()
            for item in e.items:
                elem = _join(elem, self.type_of(item, bound))
            return TList(elem)
        if k == "enum_member":
            assert isinstance(e, EnumMember)
            return self._enum(e.enum)
        if k == "name":
            assert isinstance(e, Name)
            return _plain(self._name_type(e.id, bound))
        if k == "result":
            return _plain(self._result_type())
        if k == "unary":
            assert isinstance(e, Unary)
            return BOOL if e.op == "not" else self.type_of(e.operand, bound)
        if k == "binop":
            assert isinstance(e, BinOp)
            return self._binop_type(e, bound)
        if k in ("boolop", "compare", "quant", "gen"):
            return BOOL
        if k == "if":
            assert isinstance(e, IfExpr)
            return _join(self.type_of(e.then, bound), self.type_of(e.orelse, bound))
        if k == "call":
            assert isinstance(e, Call)
            return self._call_type(e, bound)
        if k == "index":
            assert isinstance(e, Index)
            base = self.type_of(e.base, bound)
            if isinstance(base, TList):
                return base.elem
            return base if isinstance(base, TAny) else STR
        raise EncodingError(f"{k} expressions cannot be encoded in SMT-LIB")

    def _enum(self, name: str) -> TEnum:
        enum = self.scope.enums.get(name)
        if enum is None:
            raise EncodingError(f"unknown enum {name}")
        return enum

    def _name_type(self, name: str, bound: Mapping[str, tuple[str, Ty]]) -> Ty:
        if name in bound:
            return bound[name][1]
        if name in self.scope.variables:
            return self.scope.variables[name]
        if name in self.scope.consts:
            return self.scope.consts[name][0]
        raise EncodingError(f"the name {name!r} is not declared")

    def _result_type(self) -> Ty:
        if self.scope.result is None:
            raise EncodingError("'result' is used outside a function's clauses")
        return self.scope.result

    def _binop_type(self, e: BinOp, bound: Mapping[str, tuple[str, Ty]]) -> Ty:
        a = self.type_of(e.left, bound)
        b = self.type_of(e.right, bound)
        if isinstance(a, TAny) or isinstance(b, TAny):
            return TAny()  # an operand that is an element of []: never defined
        if e.op == "/":
            return REAL
        if e.op == "+":
            if isinstance(a, TDate) or isinstance(b, TDate):
                return DATE
            if isinstance(a, TStr):
                return STR
            return _join(a, b)
        if e.op == "-":
            if isinstance(a, TDate):
                return INT if isinstance(b, TDate) else DATE
            return _join(a, b)
        return _join(a, b)

    def _call_type(self, e: Call, bound: Mapping[str, tuple[str, Ty]]) -> Ty:
        f = e.func
        if f in ("len", "occurrences", "int"):
            return INT
        if f in ("matches", "startswith", "endswith", "contains"):
            return BOOL
        if f == "str":
            return STR
        if f == "abs":
            return self.type_of(e.args[0], bound)
        if f in ("min", "max"):
            if len(e.args) == 1:
                t = self.type_of(e.args[0], bound)
                return t.elem if isinstance(t, TList) else t
            out: Ty = TAny()
            for a in e.args:
                out = _join(out, self.type_of(a, bound))
            return out
        if f == "sum":
            t = self.type_of(e.args[0], bound)
            elem = t.elem if isinstance(t, TList) else INT
            return INT if isinstance(elem, TAny) else elem
        if f == "sorted":
            return self.type_of(e.args[0], bound)
        if f == self.scope.function:
            return _plain(self._result_type())
        raise EncodingError(f"the function {f}() has no SMT-LIB encoding here")

    # ------------------------------------------------------------------ encoding

    def term(self, e: Expr) -> SmtTerm:
        """``e`` encoded as (definedness, value) over the scope's names."""
        return self._enc(e, {}, None)

    def _default(self, ty: Ty) -> str:
        """Some closed term of the sort of ``ty`` (the value of a never-defined term)."""
        if isinstance(ty, TEnum):
            return constructor_symbol(ty.name, ty.members[0])
        if isinstance(ty, TList):
            return f"(as seq.empty {sort_of(ty)})"
        return {"Int": "0", "Real": "0.0", "String": '""', "Bool": "false"}[sort_of(ty)]

    def _fresh_symbol(self, stem: str) -> str:
        self._fresh += 1
        return f"|{stem}!{self._fresh}|"

    def _coerce(self, t: SmtTerm, want: Ty | None) -> SmtTerm:
        if want is None:
            return t
        want = _plain(want)
        have = _plain(t.ty)
        if isinstance(have, TAny):
            # Only an element of [] has type any; it is never defined, so any sort will
            # do, and the producer already built it with the wanted one.
            return SmtTerm(t.defined, t.value, want)
        if isinstance(want, TReal) and isinstance(have, TInt):
            return SmtTerm(t.defined, f"(to_real {t.value})", REAL)
        if isinstance(want, TList) and isinstance(have, TList):
            w, h = _plain(want.elem), _plain(have.elem)
            if isinstance(w, TReal) and isinstance(h, TInt):
                raise EncodingError("a list of ints used as a list of reals is not supported")
        return t

    def _enc(self, e: Expr, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        method = getattr(self, "_enc_" + e.kind, None)
        if method is None:
            raise EncodingError(f"{e.kind} expressions cannot be encoded in SMT-LIB")
        if e.kind in _MAY_BE_ANY and isinstance(self.type_of(e, bound), TAny):
            # Only elements of [] have type any (``[][i]``, ``min([])``, and what is
            # computed from them): never defined, so only the sort of the value matters.
            ty = INT if want is None or isinstance(_plain(want), TAny) else _plain(want)
            self._note_type(ty)
            return SmtTerm("false", self._default(ty), ty)
        t: SmtTerm = method(e, bound, want)
        if isinstance(t.ty, TAny):
            t = SmtTerm(t.defined, t.value, INT if want is None else _plain(want))
        return self._coerce(t, want)

    # leaves

    def _enc_int(self, e: IntLit, bound: object, want: Ty | None) -> SmtTerm:
        return SmtTerm("true", int_term(e.value), INT)

    def _enc_real(self, e: RealLit, bound: object, want: Ty | None) -> SmtTerm:
        try:
            q = Fraction(e.value)
        except (ValueError, ZeroDivisionError):
            raise EncodingError(f"malformed real literal {e.value!r}") from None
        return SmtTerm("true", real_term(q), REAL)

    def _enc_str(self, e: StrLit, bound: object, want: Ty | None) -> SmtTerm:
        return SmtTerm("true", string_literal(e.value), STR)

    def _enc_bool(self, e: Expr, bound: object, want: Ty | None) -> SmtTerm:
        value = getattr(e, "value", False)
        return SmtTerm("true", "true" if value else "false", BOOL)

    def _enc_date(self, e: DateLit, bound: object, want: Ty | None) -> SmtTerm:
        try:
            return SmtTerm("true", int_term(date_ordinal(e.value)), DATE)
        except ValueError:
            raise EncodingError(f"malformed date literal {e.value!r}") from None

    def _enc_enum_member(self, e: EnumMember, bound: object, want: Ty | None) -> SmtTerm:
        enum = self._enum(e.enum)
        if e.member not in enum.members:
            raise EncodingError(f"{e.enum} has no member {e.member}")
        self.used_enums.add(e.enum)
        return SmtTerm("true", constructor_symbol(e.enum, e.member), enum)

    def _enc_list(
        self, e: ListLit, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        ty = self.type_of(e, bound)
        assert isinstance(ty, TList)
        if isinstance(want, TList):
            ty = TList(_join(ty.elem, want.elem))
        self._note_type(ty)
        if not e.items:
            return SmtTerm("true", f"(as seq.empty {sort_of(ty)})", ty)
        items = [self._enc(i, bound, ty.elem) for i in e.items]
        units = [f"(seq.unit {i.value})" for i in items]
        value = units[0] if len(units) == 1 else f"(seq.++ {' '.join(units)})"
        return SmtTerm(_and(*(i.defined for i in items)), value, ty)

    def _note_type(self, ty: Ty) -> None:
        found: set[str] = set()
        _contains_enum(ty, found)
        self.used_enums |= found

    def _enc_name(self, e: Name, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        if e.id in bound:
            sym, ty = bound[e.id]
            return SmtTerm("true", sym, _plain(ty))
        if e.id in self.scope.variables:
            self.used_vars.add(e.id)
            ty = self.scope.variables[e.id]
        elif e.id in self.scope.consts:
            self.used_consts.add(e.id)
            ty = self.scope.consts[e.id][0]
        else:
            raise EncodingError(f"the name {e.id!r} is not declared")
        self._note_type(ty)
        return SmtTerm("true", symbol(e.id), _plain(ty))

    def _enc_result(self, e: Expr, bound: object, want: Ty | None) -> SmtTerm:
        ty = self._result_type()
        self.used_result = True
        self._note_type(ty)
        return SmtTerm("true", "result", _plain(ty))

    # operators

    def _enc_unary(self, e: Unary, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        a = self._enc(e.operand, bound, BOOL if e.op == "not" else want)
        if e.op == "not":
            return SmtTerm(a.defined, _not(a.value), BOOL)
        if not isinstance(a.ty, (TInt, TReal)):
            raise EncodingError(f"unary minus on {a.ty.show()}")
        return SmtTerm(a.defined, f"(- {a.value})", a.ty)

    def _enc_binop(self, e: BinOp, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        lt = self.type_of(e.left, bound)
        rt = self.type_of(e.right, bound)
        op = e.op
        if isinstance(lt, TDate) or isinstance(rt, TDate):
            return self._date_arith(e, bound, lt, rt)
        if op == "+" and (isinstance(lt, TStr) or isinstance(rt, TStr)):
            a = self._enc(e.left, bound, STR)
            b = self._enc(e.right, bound, STR)
            return SmtTerm(_and(a.defined, b.defined), f"(str.++ {a.value} {b.value})", STR)
        if op == "+" and (isinstance(lt, TList) or isinstance(rt, TList)):
            ty = _join(lt, rt)
            if isinstance(want, TList):
                ty = _join(ty, want)
            a = self._enc(e.left, bound, ty)
            b = self._enc(e.right, bound, ty)
            self._note_type(ty)
            return SmtTerm(_and(a.defined, b.defined), f"(seq.++ {a.value} {b.value})", ty)
        numeric = (TInt, TReal, TAny)
        if not (isinstance(lt, numeric) and isinstance(rt, numeric)):
            raise EncodingError(f"{lt.show()} {op} {rt.show()} has no arithmetic meaning")
        ty = REAL if op == "/" else _join(lt, rt)
        if isinstance(ty, TAny):
            ty = INT if want is None or isinstance(_plain(want), TAny) else _plain(want)
        a = self._enc(e.left, bound, ty)
        b = self._enc(e.right, bound, ty)
        defined = _and(a.defined, b.defined)
        if op in ("/", "//", "%"):
            zero = "0" if isinstance(ty, TInt) else "0.0"
            defined = _and(defined, f"(not (= {b.value} {zero}))")
        if op in ("+", "-", "*"):
            value = f"({op} {a.value} {b.value})"
        elif op == "/":
            value = f"(/ {a.value} {b.value})"
        else:
            kind = (
                ("div" if op == "//" else "mod")
                if isinstance(ty, TInt)
                else ("rdiv" if op == "//" else "rmod")
            )
            self.aux.add((kind, ""))
            value = f"(|py.{kind}| {a.value} {b.value})"
        return SmtTerm(defined, value, ty)

    def _date_arith(self, e: BinOp, bound: Mapping[str, tuple[str, Ty]], lt: Ty, rt: Ty) -> SmtTerm:
        a = self._enc(e.left, bound, DATE if isinstance(lt, TDate) else INT)
        b = self._enc(e.right, bound, DATE if isinstance(rt, TDate) else INT)
        lt, rt = a.ty, b.ty
        defined = _and(a.defined, b.defined)
        if e.op == "-" and isinstance(lt, TDate) and isinstance(rt, TDate):
            return SmtTerm(defined, f"(- {a.value} {b.value})", INT)
        if e.op == "+" and isinstance(lt, TDate) != isinstance(rt, TDate):
            value = f"(+ {a.value} {b.value})"
        elif e.op == "-" and isinstance(lt, TDate) and isinstance(rt, TInt):
            value = f"(- {a.value} {b.value})"
        else:
            raise EncodingError(f"{lt.show()} {e.op} {rt.show()} is not date arithmetic")
        in_range = f"(and (<= {MIN_DATE_ORDINAL} {value}) (<= {value} {MAX_DATE_ORDINAL}))"
        return SmtTerm(_and(defined, in_range), value, DATE)

    def _enc_boolop(
        self, e: BoolOp, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        a = self._enc(e.left, bound, BOOL)
        b = self._enc(e.right, bound, BOOL)
        if e.op == "and":
            return SmtTerm(
                _and(a.defined, _or(_not(a.value), b.defined)), _and(a.value, b.value), BOOL
            )
        if e.op == "or":
            return SmtTerm(_and(a.defined, _or(a.value, b.defined)), _or(a.value, b.value), BOOL)
        if e.op == "implies":
            return SmtTerm(
                _and(a.defined, _or(_not(a.value), b.defined)), _implies(a.value, b.value), BOOL
            )
        return SmtTerm(_and(a.defined, b.defined), f"(= {a.value} {b.value})", BOOL)

    def _enc_if(self, e: IfExpr, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        ty = _join(self.type_of(e.then, bound), self.type_of(e.orelse, bound))
        if want is not None:
            ty = _join(ty, want)
        if isinstance(ty, TAny):
            ty = INT
        c = self._enc(e.cond, bound, BOOL)
        a = self._enc(e.then, bound, ty)
        b = self._enc(e.orelse, bound, ty)
        self._note_type(ty)
        return SmtTerm(
            _and(c.defined, _ite(c.value, a.defined, b.defined)),
            _ite(c.value, a.value, b.value),
            ty,
        )

    def _enc_compare(
        self, e: Compare, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        n = len(e.ops)
        if n == 0 or len(e.operands) != n + 1:
            raise EncodingError("a malformed comparison chain")
        # Each link decides its operands' common type; an operand in two links is encoded
        # once per link (pure terms, so duplicates are harmless).
        links: list[tuple[str, str, str]] = []  # (defined-left, defined-right, link value)
        for i, op in enumerate(e.ops):
            left, right = e.operands[i], e.operands[i + 1]
            if isinstance(left, Range):
                raise EncodingError("a range can only be the right operand of 'in'")
            links.append(self._link(op, left, right, bound))
        value = _and(*(v for _, _, v in links))
        # Python stops at the first false link, so operand i+1 (the right side of link i)
        # is only evaluated when links 0..i-1 held:
        # defined = d0 & d1 & (!r0 | (d2 & (!r1 | (d3 & ...))))
        acc = "true"
        for i in range(n - 1, 0, -1):
            acc = _and(links[i][1], _or(_not(links[i][2]), acc))
        defined = _and(links[0][0], links[0][1], _or(_not(links[0][2]), acc))
        return SmtTerm(defined, value, BOOL)

    def _link(
        self, op: str, left: Expr, right: Expr, bound: Mapping[str, tuple[str, Ty]]
    ) -> tuple[str, str, str]:
        """One link ``left op right``: (defined left, defined right, truth value)."""
        if op in ("in", "not in"):
            d_l, d_r, v = self._membership(left, right, bound)
            return d_l, d_r, (_not(v) if op == "not in" else v)
        lt = self.type_of(left, bound)
        rt = self.type_of(right, bound)
        ty = _join(lt, rt)
        if isinstance(ty, TAny):
            ty = INT
        self._note_type(ty)
        a = self._enc(left, bound, ty)
        b = self._enc(right, bound, ty)
        if op == "==":
            return a.defined, b.defined, f"(= {a.value} {b.value})"
        if op == "!=":
            return a.defined, b.defined, f"(not (= {a.value} {b.value}))"
        if isinstance(ty, (TInt, TReal, TDate)):
            return a.defined, b.defined, f"({op} {a.value} {b.value})"
        if isinstance(ty, TStr):
            if op == "<":
                v = f"(str.< {a.value} {b.value})"
            elif op == "<=":
                v = f"(str.<= {a.value} {b.value})"
            elif op == ">":
                v = f"(str.< {b.value} {a.value})"
            else:
                v = f"(str.<= {b.value} {a.value})"
            return a.defined, b.defined, v
        raise EncodingError(f"ordering values of type {ty.show()} has no SMT-LIB encoding")

    def _membership(
        self, left: Expr, right: Expr, bound: Mapping[str, tuple[str, Ty]]
    ) -> tuple[str, str, str]:
        if isinstance(right, Range):
            x = self._enc(left, bound, None)
            lo = self._enc(right.lo, bound, INT)
            hi = self._enc(right.hi, bound, INT)
            if isinstance(x.ty, TReal):
                v = (
                    f"(and (is_int {x.value}) (<= (to_real {lo.value}) {x.value}) "
                    f"(<= {x.value} (to_real {hi.value})))"
                )
            elif isinstance(x.ty, TInt):
                v = f"(and (<= {lo.value} {x.value}) (<= {x.value} {hi.value}))"
            else:
                raise EncodingError(f"{x.ty.show()} in LO..HI")
            return x.defined, _and(lo.defined, hi.defined), v
        rt = self.type_of(right, bound)
        if isinstance(rt, TAny):
            # an element of [] as the container: its sort follows the left side
            lt = self.type_of(left, bound)
            rt = STR if isinstance(lt, TStr) else TList(INT if isinstance(lt, TAny) else lt)
        if isinstance(rt, TStr):
            a = self._enc(left, bound, STR)
            b = self._enc(right, bound, STR)
            return a.defined, b.defined, f"(str.contains {b.value} {a.value})"
        if isinstance(rt, TList):
            lt = self.type_of(left, bound)
            elem = _join(rt.elem, lt)
            if isinstance(elem, TAny):
                elem = INT
            a = self._enc(left, bound, elem)
            self._note_type(TList(elem))
            if isinstance(right, ListLit):
                # a literal list: one equation per item (Python builds the whole list
                # first, so every item must be defined)
                items = [self._enc(i, bound, elem) for i in right.items]
                v = _or(*(f"(= {a.value} {i.value})" for i in items))
                return a.defined, _and(*(i.defined for i in items)), v
            if isinstance(elem, TReal) and isinstance(_plain(rt.elem), TInt):
                # a real in a list of ints: compare each element as a real
                b = self._enc(right, bound, None)
                return a.defined, b.defined, self._seq_has(b.value, a.value, to_real=True)
            b = self._enc(right, bound, TList(elem))
            return a.defined, b.defined, self._seq_has(b.value, a.value)
        raise EncodingError(f"'in' on {rt.show()}")

    def _seq_has(self, xs: str, x: str, *, to_real: bool = False) -> str:
        """``x`` is an element of ``xs``: some index in range holds it.

        Written with an index, like ``all``/``any`` over a list, rather than as
        ``(seq.contains xs (seq.unit x))``: a solver then meets one representation
        (``seq.nth`` at an index) and instantiates ``all(...)`` with the witness
        index directly.  Measured: ``3 in xs`` with ``all(x > 5 for x in xs)`` is
        refuted by z3 in well under a second this way, and not within 120 s with
        ``seq.contains``.
        """
        i = self._fresh_symbol("i")
        nth = f"(seq.nth {xs} {i})"
        if to_real:
            nth = f"(to_real {nth})"
        return f"(exists (({i} Int)) (and (<= 0 {i}) (< {i} (seq.len {xs})) (= {nth} {x})))"

    def _enc_index(self, e: Index, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        bt = self.type_of(e.base, bound)
        if isinstance(bt, TList) and isinstance(bt.elem, TAny):
            bt = TList(INT if want is None else _plain(want))
        b = self._enc(e.base, bound, bt)
        i = self._enc(e.index, bound, INT)
        if isinstance(b.ty, TList):
            length, value, ty = f"(seq.len {b.value})", f"(seq.nth {b.value} {i.value})", b.ty.elem
        elif isinstance(b.ty, TStr):
            length, value, ty = f"(str.len {b.value})", f"(str.at {b.value} {i.value})", STR
        else:
            raise EncodingError(f"indexing a {b.ty.show()}")
        in_range = f"(and (<= 0 {i.value}) (< {i.value} {length}))"
        return SmtTerm(_and(b.defined, i.defined, in_range), value, _plain(ty))

    # binders

    def _enc_quant(
        self, e: Quantifier, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        lo = self._enc(e.lo, bound, INT)
        hi = self._enc(e.hi, bound, INT)
        var = symbol(e.var)
        inner = {**bound, e.var: (var, INT)}
        body = self._enc(e.body, inner, BOOL)
        in_range = f"(and (<= {lo.value} {var}) (<= {var} {hi.value}))"
        if e.quantifier == "forall":
            value = f"(forall (({var} Int)) {_implies(in_range, body.value)})"
        else:
            value = f"(exists (({var} Int)) {_and(in_range, body.defined, body.value)})"
        defined = _and(lo.defined, hi.defined)
        if body.defined != "true":
            j = self._fresh_symbol(e.var)
            body_j = self._enc(e.body, {**bound, e.var: (j, INT)}, BOOL)
            stop = _not(body_j.value) if e.quantifier == "forall" else body_j.value
            earlier = f"(and (<= {lo.value} {j}) (< {j} {var}))"
            guard = (
                f"(forall (({var} Int)) (=> {_and(in_range, _not(body.defined))} "
                f"(exists (({j} Int)) {_and(earlier, body_j.defined, stop)})))"
            )
            defined = _and(defined, guard)
        return SmtTerm(defined, value, BOOL)

    def _enc_gen(
        self, e: Generator, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        if isinstance(self.type_of(e.iterable, bound), TAny):
            return SmtTerm("false", "false", BOOL)
        xs = self._enc(e.iterable, bound, None)
        if not isinstance(xs.ty, TList):
            raise EncodingError(f"{e.func}() over a {xs.ty.show()}")
        elem = _plain(xs.ty.elem)
        if isinstance(elem, TAny):
            # only [] has elements of type any: the body is never evaluated
            return SmtTerm(xs.defined, "true" if e.func == "all" else "false", BOOL)
        k = self._fresh_symbol("k")
        var = symbol(e.var)
        inner = {**bound, e.var: (var, elem)}
        body = self._enc(e.body, inner, BOOL)

        def at(index: str, term: str) -> str:
            return f"(let (({var} (seq.nth {xs.value} {index}))) {term})"

        in_range = f"(and (<= 0 {k}) (< {k} (seq.len {xs.value})))"
        if e.func == "all":
            value = f"(forall (({k} Int)) {_implies(in_range, at(k, body.value))})"
        else:
            ok = _and(body.defined, body.value)
            value = f"(exists (({k} Int)) {_and(in_range, at(k, ok))})"
        defined = xs.defined
        if body.defined != "true":
            j = self._fresh_symbol("j")
            stop = _not(body.value) if e.func == "all" else body.value
            earlier = f"(and (<= 0 {j}) (< {j} {k}))"
            guard = (
                f"(forall (({k} Int)) (=> {_and(in_range, at(k, _not(body.defined)))} "
                f"(exists (({j} Int)) {_and(earlier, at(j, _and(body.defined, stop)))})))"
            )
            defined = _and(defined, guard)
        return SmtTerm(defined, value, BOOL)

    # calls

    def _enc_call(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        f = e.func
        if f == self.scope.function and f not in _BUILTIN_CALLS:
            return self._subject_call(e, bound)
        handler = _BUILTIN_CALLS.get(f)
        if handler is None:
            raise EncodingError(f"the function {f}() has no SMT-LIB encoding here")
        if any(isinstance(self.type_of(a, bound), TAny) for a in e.args):
            # every argument is evaluated, and an element of [] never is defined
            ty = self._call_type(e, bound)
            if isinstance(ty, TAny):
                ty = INT if want is None or isinstance(_plain(want), TAny) else _plain(want)
            self._note_type(ty)
            return SmtTerm("false", self._default(ty), ty)
        if not takes(f, len(e.args)):
            raise EncodingError(f"{f}() called with {len(e.args)} arguments")
        result: SmtTerm = getattr(self, handler)(e, bound, want)
        return result

    def _subject_call(self, e: Call, bound: Mapping[str, tuple[str, Ty]]) -> SmtTerm:
        """A call of the core's function: ``result``, where the inputs are its arguments.

        Each argument is encoded at its parameter's type and equated with the
        parameter; the equations join the call's definedness (see ``CoreScope``).
        """
        inputs = list(self.scope.inputs)
        if len(e.args) != len(inputs):
            raise EncodingError(
                f"{e.func}() is called with {len(e.args)} arguments, not {len(inputs)}"
            )
        parts: list[str] = []
        for name, arg in zip(inputs, e.args, strict=True):
            ty = self.scope.variables.get(name)
            if ty is None:
                raise EncodingError(f"the parameter {name!r} is not declared")
            a = self._enc(arg, bound, _plain(ty))
            self.used_vars.add(name)
            self._note_type(ty)
            parts.extend((a.defined, f"(= {symbol(name)} {a.value})"))
        r = self._enc_result(e, bound, None)
        return SmtTerm(_and(*parts), r.value, r.ty)

    def _call_len(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        a = self._enc(e.args[0], bound, None)
        if isinstance(a.ty, TStr):
            return SmtTerm(a.defined, f"(str.len {a.value})", INT)
        if isinstance(a.ty, TList):
            return SmtTerm(a.defined, f"(seq.len {a.value})", INT)
        raise EncodingError(f"len() of a {a.ty.show()}")

    def _call_abs(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        a = self._enc(e.args[0], bound, want if want is not None else None)
        if isinstance(a.ty, TInt):
            return SmtTerm(a.defined, f"(abs {a.value})", INT)
        if isinstance(a.ty, TReal):
            return SmtTerm(a.defined, f"(ite (< {a.value} 0.0) (- {a.value}) {a.value})", REAL)
        raise EncodingError(f"abs() of a {a.ty.show()}")

    def _call_extreme(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        largest = e.func == "max"
        if len(e.args) == 1:
            xt = self.type_of(e.args[0], bound)
            if isinstance(xt, TList) and isinstance(xt.elem, TAny):
                xt = TList(INT if want is None else _plain(want))
            xs = self._enc(e.args[0], bound, xt)
            if not isinstance(xs.ty, TList):
                raise EncodingError(f"{e.func}() of a {xs.ty.show()}")
            elem = _plain(xs.ty.elem)
            sort = self._ordered_sort(elem)
            self.aux.add((e.func, sort))
            defined = _and(xs.defined, f"(> (seq.len {xs.value}) 0)")
            return SmtTerm(defined, f"(|py.{e.func}.{_sort_tag(sort)}| {xs.value} 0)", elem)
        ty = self._call_type(e, bound)
        if isinstance(ty, TAny):
            ty = INT if want is None else _plain(want)
        sort = self._ordered_sort(ty)
        args = [self._enc(a, bound, ty) for a in e.args]
        acc = args[0].value
        for a in args[1:]:
            # Python keeps the earlier value unless a later one is strictly better.
            better = _lt(sort, acc, a.value) if largest else _lt(sort, a.value, acc)
            acc = f"(ite {better} {a.value} {acc})"
        return SmtTerm(_and(*(a.defined for a in args)), acc, ty)

    def _is_any(self, e: Expr, bound: Mapping[str, tuple[str, Ty]]) -> bool:
        return isinstance(self.type_of(e, bound), TAny)

    def _ordered_sort(self, ty: Ty) -> str:
        if isinstance(ty, (TInt, TReal, TDate, TStr)):
            return sort_of(ty)
        raise EncodingError(f"ordering values of type {ty.show()} has no SMT-LIB encoding")

    def _call_sum(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        xs = self._enc(e.args[0], bound, None)
        if not isinstance(xs.ty, TList):
            raise EncodingError(f"sum() of a {xs.ty.show()}")
        elem = _plain(xs.ty.elem)
        if isinstance(elem, TAny):
            return SmtTerm(xs.defined, "0", INT)
        if not isinstance(elem, (TInt, TReal)):
            raise EncodingError(f"sum() of a {xs.ty.show()}")
        sort = sort_of(elem)
        self.aux.add(("sum", sort))
        return SmtTerm(xs.defined, f"(|py.sum.{sort}| {xs.value} 0)", elem)

    def _call_int(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        s = self._enc(e.args[0], bound, STR)
        if not isinstance(s.ty, TStr):
            raise EncodingError(f"int() of a {s.ty.show()}")
        defined = _and(s.defined, f"(str.in_re {s.value} {_DIGITS})")
        return SmtTerm(defined, f"(str.to_int {s.value})", INT)

    def _call_str(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        n = self._enc(e.args[0], bound, INT if self._is_any(e.args[0], bound) else None)
        if not isinstance(n.ty, TInt):
            raise EncodingError(f"str() of a {n.ty.show()} has no SMT-LIB encoding")
        v = n.value
        value = f'(ite (>= {v} 0) (str.from_int {v}) (str.++ "-" (str.from_int (- {v}))))'
        return SmtTerm(n.defined, value, STR)

    def _call_matches(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        s = self._enc(e.args[0], bound, STR)
        pattern = e.args[1]
        if not isinstance(pattern, StrLit):
            raise EncodingError("matches() needs a literal pattern")
        try:
            tree = _regex.parse(pattern.value)
        except _regex.RegexError as err:
            raise EncodingError(f"bad pattern {pattern.value!r}: {err}") from None
        return SmtTerm(s.defined, f"(str.in_re {s.value} {regex_term(tree)})", BOOL)

    def _call_string_test(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        s = self._enc(e.args[0], bound, STR)
        p = self._enc(e.args[1], bound, STR)
        if not (isinstance(s.ty, TStr) and isinstance(p.ty, TStr)):
            raise EncodingError(f"{e.func}() of non-strings")
        defined = _and(s.defined, p.defined)
        if e.func == "contains":
            return SmtTerm(defined, f"(str.contains {s.value} {p.value})", BOOL)
        return SmtTerm(defined, f"({_STRING_TESTS[e.func]} {p.value} {s.value})", BOOL)

    def _call_occurrences(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        xs_t = self.type_of(e.args[0], bound)
        x_t = self.type_of(e.args[1], bound)
        if not isinstance(xs_t, TList):
            raise EncodingError(f"occurrences() in a {xs_t.show()}")
        elem = _join(xs_t.elem, x_t)
        if isinstance(elem, TReal) and isinstance(_plain(xs_t.elem), TInt):
            raise EncodingError("occurrences() of a real in a list of ints is not supported")
        xs = self._enc(e.args[0], bound, TList(elem))
        x = self._enc(e.args[1], bound, elem)
        self._note_type(elem)
        sort = sort_of(elem)
        self.aux.add(("occ", sort))
        return SmtTerm(
            _and(xs.defined, x.defined),
            f"(|py.occurrences.{_sort_tag(sort)}| {xs.value} {x.value} 0)",
            INT,
        )

    def _call_sorted(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        xs = self._enc(e.args[0], bound, want)
        if not isinstance(xs.ty, TList):
            raise EncodingError(f"sorted() of a {xs.ty.show()}")
        elem = _plain(xs.ty.elem)
        if isinstance(elem, TAny):
            return xs
        sort = self._ordered_sort(elem)
        self.aux.add(("sorted", sort))
        return SmtTerm(xs.defined, f"(|py.sorted.{_sort_tag(sort)}| {xs.value} 0)", xs.ty)

    # ------------------------------------------------------------------ the script

    def preamble(self) -> list[str]:
        """Declarations for everything ``term`` has used so far (and the fixed inputs)."""
        scope = self.scope
        lines = ["(set-logic ALL)"]
        for name in sorted(scope.fixed):
            self._note_type(scope.variables[name])
        for name in self.used_consts:
            self._note_type(scope.consts[name][0])
        for name in sorted(self.used_enums):
            enum = self._enum(name)
            ctors = " ".join(f"({constructor_symbol(name, m)})" for m in enum.members)
            lines.append(f"(declare-datatypes (({symbol(name)} 0)) (({ctors})))")
        for kind in _AUX_ORDER:
            for key in sorted(k for k in self.aux if k[0] == kind):
                lines.extend(_aux_definitions(key))
        for name in sorted(self.used_consts):
            ty, value = scope.consts[name]
            lines.append(f"(define-fun {symbol(name)} () {sort_of(ty)} {value_term(value, ty)})")
        names = sorted(set(self.used_vars) | set(scope.fixed))
        for name in names:
            ty = scope.variables[name]
            if name in scope.fixed:
                lines.append(
                    f"(define-fun {symbol(name)} () {sort_of(ty)} "
                    f"{value_term(scope.fixed[name], ty)})"
                )
            else:
                lines.append(f"(declare-fun {symbol(name)} () {sort_of(ty)})")
                lines.extend(_domain(symbol(name), ty))
        if self.used_result:
            lines.append(f"(declare-fun result () {sort_of(self._result_type())})")
            lines.extend(_domain("result", self._result_type()))
        return lines

    def taken_symbols(self) -> set[str]:
        """Spec names that appear as SMT symbols (a label must differ from all of them)."""
        out = set(self.used_vars) | set(self.scope.fixed) | set(self.used_consts)
        out |= set(self.used_enums)
        for name in self.used_enums:
            out |= {f"{name}.{m}" for m in self._enum(name).members}
        return out


def _domain(sym: str, ty: Ty) -> list[str]:
    """What the sort does not say about a variable's values: a date is a calendar day.

    Unnamed, so not part of the core: it belongs to the type, like a datatype's members.
    """
    if isinstance(ty, TDate):
        return [f"(assert (and (<= {MIN_DATE_ORDINAL} {sym}) (<= {sym} {MAX_DATE_ORDINAL})))"]
    return []


_MAY_BE_ANY: Final = frozenset({"binop", "unary", "if", "index", "call"})

_BUILTIN_CALLS: Final = {
    "len": "_call_len",
    "abs": "_call_abs",
    "min": "_call_extreme",
    "max": "_call_extreme",
    "sum": "_call_sum",
    "int": "_call_int",
    "str": "_call_str",
    "matches": "_call_matches",
    "startswith": "_call_string_test",
    "endswith": "_call_string_test",
    "contains": "_call_string_test",
    "occurrences": "_call_occurrences",
    "sorted": "_call_sorted",
}


def encode_script(members: Sequence[tuple[str, Expr]], scope: CoreScope) -> str:
    """The SMT-LIB 2.6 script of a core: each member asserted defined and true, named by id.

    ``members`` are ``(id, expression)`` pairs in core order.  The script declares
    what the expressions use, fixes the witness input (``scope.fixed``, where there
    is one to fix) with ``define-fun`` outside the core, and ends with ``(check-sat)``.
    """
    encoder = SmtEncoder(scope)
    terms = [(ident, encoder.term(expr).holds) for ident, expr in members]
    lines = encoder.preamble()
    taken = encoder.taken_symbols()
    seen: set[str] = set()
    for ident, holds in terms:
        label = label_symbol(ident, taken)
        if label in seen:
            raise EncodingError(f"two core members are both named {ident!r}")
        seen.add(label)
        lines.append(f"(assert (! {holds} :named {label}))")
    lines.append("(check-sat)")
    return "\n".join(lines) + "\n"
