"""The type checker: names, types, arities and shapes of a parsed contract (LANGUAGE.md §2-§5).

``check(contract)`` returns a ``TypeInfo`` (resolved enums, constants and their
values, params, signatures, and ``scope``/``result_type``/``type_of`` for the
back-ends) or raises ``SpecErrors`` listing *every* problem found, each with file,
line, column, source line and, where one helps, a hint.  Everything downstream
(the Z3 encoding, the evaluator, the test generator) may assume what is checked
here and need not re-check it.

Typing rules (the design is silent on some; each decision is written here and
tested in ``tests/unit/test_typecheck*.py``):

- ``int`` is promoted to ``real`` in mixed arithmetic and comparisons, and wherever a
  ``real`` is expected (a ``real`` const written ``1``, an example argument).  Never the
  other way.  ``bool`` is not a number.
- ``+ - *`` on two ints give int, with a real operand real; ``/`` always gives real;
  ``//`` and ``%`` on two ints give int, with a real operand real (Python's floor
  semantics, as the evaluator implements them).
- ``+`` concatenates ``str + str`` and ``list + list`` (element types must agree, an
  int list and a real list give a real list); ``*`` is numeric only (no repetition).
- dates: ``date - date`` is int (days), ``date + int``, ``int + date`` and ``date - int``
  are dates; no other arithmetic on dates.
- unary ``-`` on int/real; ``not`` on bool.
- ``== !=`` need operands of one base type (int/real mix allowed; an enum only with its
  own enum; lists element-wise; ``[]`` with any list).  ``< <= > >=`` need both sides
  int/real, both str, or both date.
- ``x in LO..HI``: ``x``, ``LO``, ``HI`` int.  ``x in xs``: ``xs`` a list whose elements
  can be compared with ``==`` to ``x``.  ``p in s``: both str (substring).
- a range ``LO..HI`` anywhere but right of ``in``/``not in`` is an error.
- ``xs[i]``: ``i`` int; a list gives its element type, a str gives str (one character).
- ``if C then A else B``: ``C`` bool, ``A`` and ``B`` of one type (as for ``==``; int and
  real give real).
- quantifier bounds int, variable int, body bool; ``all/any(E for x in xs)``: ``xs`` a
  list, ``x`` of its element type, ``E`` bool.  Bound variables shadow everything.
- built-ins: ``len(str|list) -> int``; ``abs(int) -> int``, ``abs(real) -> real``;
  ``min/max`` of two or more values of one ordered type (int/real mix gives real; str;
  date) or of one list of such -> that type; ``sum(list[int]) -> int``,
  ``sum(list[real]) -> real`` (``sum([])`` is int); ``int(str) -> int``;
  ``str(int) -> str``; ``matches(str, "RE") -> bool`` where RE must be a string
  *literal* in the supported regex subset (so it can be checked and encoded);
  ``startswith/endswith/contains(str, str) -> bool``; ``occurrences(list[T], T) -> int``
  (lists only; use ``contains`` for strings); ``sorted(list[T]) -> list[T]`` for an
  ordered ``T``.  ``all(xs)``/``any(xs)`` without a generator are errors.
- refinement types (``int in 0..9``, ``str matching "..."``) are their base type in
  expressions; a name (and ``result``) keeps its declared, refined type, the result of
  an operator or built-in is a base type.
- ``[]`` has type ``list[any]``; ``any`` (also the type given to an ill-typed
  sub-expression, so that one mistake is reported once) meets every type.  Arithmetic
  with an ``any`` operand has the one result all readings agree on (``x + 0.5`` is
  real), else ``any``.
- ``result``: in ``ensures`` (the function's/operation's return type) and in ``count``
  predicates (the counted operation's return type); an operation that returns ``none``
  has no ``result``.
- scopes: requirements see params and consts; function/operation clauses see the
  parameters and consts (a param there is an error with a hint); a parameter with the
  name of a const is an error (it would shadow it); examples see consts only (their
  call is the function itself, with literal or const arguments); invariants see consts
  and ``count(...)``, whose ``where`` predicate sees the counted operation's parameters,
  ``result`` and consts.
- examples: ``CALL == V`` / ``CALL raises E`` where CALL calls the owning function
  (or, for an operation, the operation by its bare name), with the right number of
  arguments, each of the parameter's type and, evaluated, inside its refinement; ``V``
  of the return type (an operation returning ``none`` only has ``raises`` examples).
  Spec functions cannot be called anywhere else.
- ``count(OP where P, per X)`` only in invariants, ``OP`` an operation of the same
  system, ``X`` one of OP's parameters, ``P`` bool; the count must be a direct operand
  of a comparison ``== < <= > >=`` whose other operands are integer literals or int
  constants.
- consts: evaluated in dependency order (any declaration order), from literals, other
  consts and built-ins only; a cycle, an undefined value (``1 // 0``), a value outside
  the declared type or its refinement is an error.  A ``real`` const holds a
  ``Fraction`` even if written as an integer.
- ``int in LO..HI``: bounds are integer literals, negated literals or int constants,
  ``LO <= HI``.  ``none`` only as an operation's result.  A declared exception's base
  is a built-in exception or a declared one (no cycles); declaring a built-in name is an
  error.  ``from op`` names an operation of the same system whose result has the
  parameter's base type (refinements may differ).  ``bind NAME to "module:attr"`` names
  a declared function, system, enum or exception.
- errors are sorted by file, line and column; a regex error points at the offending
  character inside the string literal (escapes and raw strings followed).
"""

from __future__ import annotations

import difflib
import linecache
import re
from collections import ChainMap
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from typing import cast

from derivative import _regex
from derivative._ast import (
    BindDecl,
    BinOp,
    BoolOp,
    Call,
    Compare,
    ConstDecl,
    Contract,
    Count,
    DateLit,
    EnumDecl,
    EnumMember,
    Expr,
    FunctionDecl,
    Generator,
    IfExpr,
    Index,
    IntLit,
    IntType,
    ListLit,
    ListType,
    Name,
    NamedType,
    NoneType_,
    Obligation,
    OperationDecl,
    ParamDecl,
    Parameter,
    Quantifier,
    Range,
    RealLit,
    Result,
    StrLit,
    StrType,
    SystemDecl,
    TypeRef,
    Unary,
)
from derivative._builtins import BUILTIN_EXCEPTIONS, BUILTIN_FUNCTIONS, builtin_exception_mro
from derivative._errors import SourcePos, SpecError, SpecErrors
from derivative._eval import EvaluationError, evaluate
from derivative._types import (
    BOOL,
    DATE,
    INT,
    NONE,
    REAL,
    STR,
    TAny,
    TBool,
    TDate,
    TEnum,
    TInt,
    TList,
    TNone,
    TRange,
    TReal,
    TStr,
    Ty,
    base,
)
from derivative._values import UNDEFINED, EnumValue, Value
from derivative._walk import ExprVisitor, free_names

# --------------------------------------------------------------------------- public types


@dataclass(frozen=True)
class Signature:
    """A function's or operation's parameters ``(name, type, from_op)`` and result type."""

    params: tuple[tuple[str, Ty, str | None], ...]
    returns: Ty


@dataclass
class TypeInfo:
    """What the checker resolved; every back-end reads types from here."""

    contract: Contract
    enums: dict[str, TEnum] = field(default_factory=dict)
    exceptions: dict[str, str] = field(default_factory=dict)
    """Declared exceptions: name -> base name (built-ins are not listed)."""
    const_types: dict[str, Ty] = field(default_factory=dict)
    const_values: dict[str, Value] = field(default_factory=dict)
    param_types: dict[str, Ty] = field(default_factory=dict)
    signatures: dict[str, Signature] = field(default_factory=dict)
    """Key: function name or ``System.op``."""
    _callables_cache: dict[str | None, dict[str, Signature]] = field(
        default_factory=dict, repr=False, compare=False
    )

    # ------------------------------------------------------------------ scopes

    def scope(self, obligation: Obligation) -> dict[str, Ty]:
        """Names visible in ``obligation``'s expression, with their types.

        Requirements: params and consts.  Function/operation clauses (requires,
        ensures, raises): the parameters and consts.  Examples and invariants: consts
        (a ``count`` predicate's names come from ``count_scope``).
        """
        names = dict(self.const_types)
        if obligation.kind == "requirement":
            names.update(self.param_types)
        elif obligation.kind in ("requires", "ensures", "raises") and obligation.owner:
            sig = self.signatures.get(obligation.owner)
            if sig is not None:
                names.update({n: t for n, t, _ in sig.params})
        return names

    def result_type(self, obligation: Obligation) -> Ty | None:
        """The type of ``result`` in ``obligation`` (ensures only), else None."""
        if obligation.kind != "ensures" or obligation.owner is None:
            return None
        sig = self.signatures.get(obligation.owner)
        return None if sig is None else sig.returns

    def count_scope(self, system: str, op: str) -> tuple[dict[str, Ty], Ty]:
        """Names visible in ``count(op where P)`` of ``system``, and ``result``'s type."""
        sig = self.signatures[f"{system}.{op}"]
        names = dict(self.const_types)
        names.update({n: t for n, t, _ in sig.params})
        return names, sig.returns

    def type_of(
        self,
        expr: Expr,
        scope: Mapping[str, Ty],
        result: Ty | None = None,
        *,
        system: str | None = None,
    ) -> Ty:
        """The type of ``expr`` with ``scope`` visible; ``SpecErrors`` if ill-typed.

        ``system`` gives the system whose operations ``count(...)`` may name; spec
        functions (and operations of ``system``) may be called, as in examples.
        """
        state = _State(self)
        ctx = _Ctx(
            file="",
            names=dict(scope),
            result=result,
            result_error=None if result is not None else "`result` is not available here",
            system=self._system(system) if system else None,
            callables=self._callables(system),
            count_allowed=system is not None,
        )
        ty = _ExprChecker(state, ctx).check(expr)
        if state.errors:
            raise SpecErrors(state.errors)
        return ty

    # ------------------------------------------------------------------ exceptions

    def is_exception(self, name: str) -> bool:
        return name in self.exceptions or name in BUILTIN_EXCEPTIONS

    def exception_chain(self, name: str) -> tuple[str, ...]:
        """Class names from ``name`` through its bases to ``BaseException``."""
        out: list[str] = []
        while name in self.exceptions and name not in out:
            out.append(name)
            name = self.exceptions[name]
        return (*out, *builtin_exception_mro(name))

    # ------------------------------------------------------------------ helpers

    def _system(self, name: str) -> SystemDecl | None:
        for s in self.contract.systems():
            if s.name == name:
                return s
        return None

    def _callables(self, system: str | None) -> dict[str, Signature]:
        cached = self._callables_cache.get(system)
        if cached is not None:
            return cached
        out = {
            f.name: self.signatures[f.name]
            for f in self.contract.functions()
            if f.name in self.signatures
        }
        for s in self.contract.systems():
            if system is None or s.name == system:
                for op in s.operations:
                    if op.qualname in self.signatures:
                        out.setdefault(op.name, self.signatures[op.qualname])
        self._callables_cache[system] = out
        return out


# --------------------------------------------------------------------------- type algebra


def _is_num(t: Ty) -> bool:
    return isinstance(t, (TInt, TReal, TAny))


def _is_int(t: Ty) -> bool:
    return isinstance(t, (TInt, TAny))


def _is_str(t: Ty) -> bool:
    return isinstance(t, (TStr, TAny))


def _is_bool(t: Ty) -> bool:
    return isinstance(t, (TBool, TAny))


def _is_ordered(t: Ty) -> bool:
    return isinstance(t, (TInt, TReal, TStr, TDate, TAny))


def join(a: Ty, b: Ty) -> Ty | None:
    """The common type of two values that meet (``==``, list items, if branches),
    or None if they cannot: int and real give real, refinements are dropped unless
    equal, ``any`` (the element of ``[]``) meets everything."""
    if isinstance(a, TAny):
        return b
    if isinstance(b, TAny):
        return a
    if a == b:
        return a
    if isinstance(a, (TInt, TReal)) and isinstance(b, (TInt, TReal)):
        return INT if isinstance(a, TInt) and isinstance(b, TInt) else REAL
    if isinstance(a, TStr) and isinstance(b, TStr):
        return STR
    if isinstance(a, TList) and isinstance(b, TList):
        e = join(a.elem, b.elem)
        return None if e is None else TList(e)
    return None


def assignable(target: Ty, value: Ty) -> bool:
    """Whether a value of type ``value`` may stand where ``target`` is expected
    (refinements are checked on values, not here; int is promoted to real)."""
    if isinstance(value, TAny) or isinstance(target, TAny):
        return True
    if isinstance(target, TReal):
        return isinstance(value, (TInt, TReal))
    if isinstance(target, TList):
        return isinstance(value, TList) and assignable(target.elem, value.elem)
    return base(target) == base(value)


_CANDIDATES: tuple[Ty, ...] = (INT, REAL, STR, DATE, TList(TAny()))
"""What an operand of unknown type (an element of ``[]``) might be, for arithmetic."""


def _arith(op: str, a: Ty, b: Ty) -> Ty | None:
    """Result type of ``a op b`` for a BinOp, or None if undefined on these types.

    An operand of unknown type (``TAny``: an element of ``[]``) is tried as every type
    that arithmetic accepts; the result is the one outcome if all possible readings
    agree (``x + 0.5`` is real), else unknown (``x + 1`` may be an int or a date)."""
    if isinstance(a, TAny) and isinstance(b, TAny):
        return REAL if op == "/" else TAny()
    if isinstance(a, TAny) or isinstance(b, TAny):
        outcomes: set[Ty] = set()
        for cand in _CANDIDATES:
            r = _arith(op, cand, b) if isinstance(a, TAny) else _arith(op, a, cand)
            if r is not None:
                outcomes.add(r)
        if not outcomes:
            return None
        return outcomes.pop() if len(outcomes) == 1 else TAny()
    num_a, num_b = _is_num(a), _is_num(b)
    if op == "+":
        if num_a and num_b:
            return _num_result(a, b)
        if isinstance(a, TStr) and isinstance(b, TStr):
            return STR
        if isinstance(a, TList) and isinstance(b, TList):
            e = join(a.elem, b.elem)
            return None if e is None else TList(base(e))
        if isinstance(a, TDate) and isinstance(b, TInt):
            return DATE
        if isinstance(a, TInt) and isinstance(b, TDate):
            return DATE
        return None
    if op == "-":
        if num_a and num_b:
            return _num_result(a, b)
        if isinstance(a, TDate) and isinstance(b, TDate):
            return INT
        if isinstance(a, TDate) and isinstance(b, TInt):
            return DATE
        return None
    if not (num_a and num_b):
        return None
    if op == "/":
        return REAL
    return _num_result(a, b)


def _num_result(a: Ty, b: Ty) -> Ty:
    return REAL if isinstance(a, TReal) or isinstance(b, TReal) else INT


def _comparable(a: Ty, b: Ty) -> bool:
    """``a == b`` is meaningful (see ``join``); ranges never are."""
    if isinstance(a, TRange) or isinstance(b, TRange):
        return False
    return join(a, b) is not None


def _closest(name: str, candidates: Iterable[str]) -> str | None:
    found = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def _did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    best = _closest(name, candidates)
    return None if best is None else f"did you mean {best!r}?"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --------------------------------------------------------------------------- values


def value_fits(value: object, ty: Ty) -> bool:
    """Whether a computed value belongs to ``ty`` including its refinement."""
    if isinstance(ty, TAny):
        return True
    if isinstance(ty, TInt):
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        return (ty.lo is None or value >= ty.lo) and (ty.hi is None or value <= ty.hi)
    if isinstance(ty, TReal):
        return isinstance(value, Fraction | int) and not isinstance(value, bool)
    if isinstance(ty, TBool):
        return isinstance(value, bool)
    if isinstance(ty, TStr):
        if not isinstance(value, str):
            return False
        return ty.pattern is None or _regex.fullmatch(ty.pattern, value)
    if isinstance(ty, TDate):
        return isinstance(value, date)
    if isinstance(ty, TEnum):
        return (
            isinstance(value, EnumValue) and value.enum == ty.name and (value.member in ty.members)
        )
    if isinstance(ty, TList):
        return isinstance(value, tuple) and all(value_fits(v, ty.elem) for v in value)
    return False


def _coerce(value: Value, ty: Ty) -> Value:
    """A real-typed value written as an int becomes a Fraction (also inside lists)."""
    if isinstance(ty, TReal) and isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(ty, TList) and isinstance(value, tuple):
        return tuple(_coerce(v, ty.elem) for v in value)
    return value


def _show_value(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, date):
        return f'date("{value.isoformat()}")'
    if isinstance(value, tuple):
        return "[" + ", ".join(_show_value(v) for v in value) + "]"
    return str(value)


# --------------------------------------------------------------------------- positions


def _pos(file: str, line: int, column: int) -> SourcePos | None:
    """A position with its source line for the caret; None for a node built by hand
    without file or line (``type_of`` on a synthetic tree)."""
    if not file and line <= 0:
        return None
    text = linecache.getline(file, line).rstrip("\r\n") if file and line > 0 else ""
    return SourcePos(file, line, column, text)


def _literal_columns(source: str, start: int) -> list[int] | None:
    """Columns (0-based, in ``source``) of each decoded character of the string literal
    starting at ``source[start]``, or None if it cannot be followed exactly."""
    i = start
    raw = False
    if i < len(source) and source[i] in "rR":
        raw = True
        i += 1
    if i >= len(source) or source[i] not in "\"'":
        return None
    quote = source[i]
    i += 1
    cols: list[int] = []
    simple = {"\\", "'", '"', "a", "b", "f", "n", "r", "t", "v"}
    while i < len(source) and source[i] != quote:
        c = source[i]
        if c != "\\":
            cols.append(i)
            i += 1
            continue
        if raw:
            # A raw string keeps the backslash and the next character.
            cols.extend((i, i + 1))
            i += 2
            continue
        nxt = source[i + 1] if i + 1 < len(source) else ""
        if nxt in simple:
            cols.append(i)
            i += 2
        elif nxt in ("x", "u", "U"):
            cols.append(i)
            i += 2 + {"x": 2, "u": 4, "U": 8}[nxt]
        elif nxt == "N":
            end = source.find("}", i)
            if end < 0:
                return None
            cols.append(i)
            i = end + 1
        elif nxt in "01234567":
            j = i + 1
            while j < len(source) and j < i + 4 and source[j] in "01234567":
                j += 1
            cols.append(i)
            i = j
        else:
            return None
    if i >= len(source):
        return None
    cols.append(i)  # the closing quote: where an error "at the end" points
    return cols


def _regex_column(file: str, line: int, lit_col: int, offset: int, value: str) -> int:
    """The column of ``offset`` inside the string literal that starts at ``lit_col``."""
    text = linecache.getline(file, line) if file and line > 0 else ""
    cols = _literal_columns(text, lit_col - 1) if text else None
    if cols is None or len(cols) != len(value) + 1 or offset > len(value):
        return lit_col
    return cols[offset] + 1


def _exception_column(file: str, line: int, column: int, name: str) -> int:
    """The column of ``name`` after ``raises`` on the clause's line (else ``column``)."""
    text = linecache.getline(file, line) if file and line > 0 else ""
    m = re.compile(r"\braises\s+(" + re.escape(name) + r")\b").search(text, max(column - 1, 0))
    return m.start(1) + 1 if m else column


def _matching_literal_column(file: str, line: int, type_col: int) -> int | None:
    """Where the literal of ``str matching "RE"`` starts, given the ``str`` column."""
    text = linecache.getline(file, line) if file and line > 0 else ""
    i = type_col - 1
    if not text.startswith("str", i):
        return None
    i += 3
    while i < len(text) and text[i] in " \t":
        i += 1
    if not text.startswith("matching", i):
        return None
    i += len("matching")
    while i < len(text) and text[i] in " \t":
        i += 1
    return i + 1 if i < len(text) else None


# --------------------------------------------------------------------------- checker state


class _Forbidden(Mapping[str, tuple[str, str | None]]):
    """Declared names that may not be used here, with the message and hint to give.

    Built per obligation, so it formats messages only on a look-up that hits (a
    dictionary of every param per obligation made large specs quadratic)."""

    def __init__(self, names: Collection[str], message: str, hint: str | None) -> None:
        self._names = names
        self._message = message
        self._hint = hint

    def __getitem__(self, name: str) -> tuple[str, str | None]:
        if name not in self._names:
            raise KeyError(name)
        hint = None if self._hint is None else self._hint.format(name=name)
        return (self._message.format(name=repr(name)), hint)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


@dataclass
class _Ctx:
    """What an expression may see."""

    file: str
    names: Mapping[str, Ty]
    result: Ty | None = None
    result_error: str | None = "`result` is only allowed in ensures clauses and count predicates"
    forbidden: Mapping[str, tuple[str, str | None]] = field(default_factory=dict)
    """Declared names not visible here -> (message, hint)."""
    system: SystemDecl | None = None
    callables: dict[str, Signature] = field(default_factory=dict)
    count_allowed: bool = False
    line: int = 0
    column: int = 0
    """Fallback position for nodes built without one."""


class _State:
    """Errors and the resolved tables shared by all expression checks."""

    def __init__(self, info: TypeInfo) -> None:
        self.info = info
        self.errors: list[SpecError] = []

    def error(
        self, message: str, file: str, line: int, column: int, hint: str | None = None
    ) -> None:
        self.errors.append(SpecError(message, _pos(file, line, column), hint=hint))


_REGEX_SHAPE_HINT = 'write the pattern as a string literal, e.g. matches(s, "[0-9]+")'


class _ExprChecker(ExprVisitor[Ty]):
    """Computes the type of an expression, recording errors instead of stopping.

    An ill-typed sub-expression gets ``TAny`` so one mistake is reported once, not
    again by every operator above it.
    """

    def __init__(self, state: _State, ctx: _Ctx) -> None:
        self.state = state
        self.ctx = ctx
        self.bound: dict[str, Ty] = {}
        self.count_operands: set[int] = set()

    # ------------------------------------------------------------------ plumbing

    def check(self, expr: Expr) -> Ty:
        return self.visit(expr)

    def err(self, node: Expr, message: str, hint: str | None = None) -> Ty:
        line, col = (node.line, node.col) if node.line else (self.ctx.line, self.ctx.column)
        self.state.error(message, self.ctx.file, line, col, hint)
        return TAny()

    def expect(self, node: Expr, pred: bool, message: str, hint: str | None = None) -> None:
        if not pred:
            self.err(node, message, hint)

    def cond(self, node: Expr, what: str) -> None:
        t = self.visit(node)
        if not _is_bool(t):
            self.err(node, f"{what} must be a bool, not {t.show()}")

    # ------------------------------------------------------------------ leaves

    def visit_int(self, node: IntLit) -> Ty:
        return INT

    def visit_real(self, node: RealLit) -> Ty:
        return REAL

    def visit_str(self, node: StrLit) -> Ty:
        return STR

    def visit_bool(self, node: Expr) -> Ty:
        return BOOL

    def visit_date(self, node: DateLit) -> Ty:
        return DATE

    def visit_list(self, node: ListLit) -> Ty:
        elem: Ty = TAny()
        for item in node.items:
            t = self.visit(item)
            if isinstance(t, TRange):
                continue
            j = join(elem, t)
            if j is None:
                self.err(item, f"list items must have one type: {elem.show()} and {t.show()}")
                return TList(TAny())
            elem = j
        return TList(base(elem))

    def visit_enum_member(self, node: EnumMember) -> Ty:
        enums = self.state.info.enums
        enum = enums.get(node.enum)
        if enum is None:
            return self.err(node, f"unknown enum {node.enum!r}", _did_you_mean(node.enum, enums))
        if node.member not in enum.members:
            return self.err(
                node,
                f"enum {node.enum} has no member {node.member!r}",
                _did_you_mean(node.member, enum.members) or "members: " + ", ".join(enum.members),
            )
        return enum

    def visit_name(self, node: Name) -> Ty:
        name = node.id
        if name in self.bound:
            return self.bound[name]
        if name in self.ctx.names:
            return self.ctx.names[name]
        if name in self.ctx.forbidden:
            message, hint = self.ctx.forbidden[name]
            return self.err(node, message, hint)
        info = self.state.info
        if name in info.enums:
            members = info.enums[name].members
            return self.err(
                node,
                f"{name!r} is an enum, not a value",
                f"write a member, e.g. {name}.{members[0]}" if members else None,
            )
        if name in info.signatures or name in self.ctx.callables:
            return self.err(node, f"{name!r} is a function, not a value", f"call it: {name}(...)")
        candidates = [*self.bound, *self.ctx.names]
        return self.err(node, f"unknown name {name!r}", _did_you_mean(name, candidates))

    def visit_result(self, node: Result) -> Ty:
        if self.ctx.result is None:
            return self.err(node, self.ctx.result_error or "`result` is not available here")
        if isinstance(self.ctx.result, TNone):
            return self.err(node, "`result` has no value: the operation returns none")
        return self.ctx.result

    # ------------------------------------------------------------------ operators

    def visit_unary(self, node: Unary) -> Ty:
        t = self.visit(node.operand)
        if node.op == "not":
            if not _is_bool(t):
                return self.err(node, f"`not` needs a bool, not {t.show()}")
            return BOOL
        if not _is_num(t):
            return self.err(node, f"unary `-` needs an int or real, not {t.show()}")
        return base(t) if not isinstance(t, TAny) else t

    def visit_binop(self, node: BinOp) -> Ty:
        a = self.visit(node.left)
        b = self.visit(node.right)
        for side, t in ((node.left, a), (node.right, b)):
            if isinstance(t, TRange):
                return self.err(side, "a range LO..HI may only follow `in` or `not in`")
        r = _arith(node.op, a, b)
        if r is None:
            hint = None
            if node.op == "+" and (isinstance(a, TStr) or isinstance(b, TStr)):
                hint = "convert numbers with str(n), strings with int(s)"
            elif node.op == "*" and isinstance(a, (TStr, TList)):
                hint = "`*` is numeric only (no repetition)"
            return self.err(
                node, f"operator `{node.op}` cannot combine {a.show()} and {b.show()}", hint
            )
        return r

    def visit_boolop(self, node: BoolOp) -> Ty:
        for side in (node.left, node.right):
            t = self.visit(side)
            if not _is_bool(t):
                self.err(side, f"operands of `{node.op}` must be bool, not {t.show()}")
        return BOOL

    def visit_compare(self, node: Compare) -> Ty:
        has_count = any(isinstance(o, Count) for o in node.operands)
        if has_count and self.ctx.count_allowed:
            self._check_count_comparison(node)
        types: list[Ty] = []
        for i, operand in enumerate(node.operands):
            if isinstance(operand, Range) and i > 0 and node.ops[i - 1] in ("in", "not in"):
                types.append(TRange())
                self._range(operand)
            elif isinstance(operand, Range):
                self.visit(operand)  # reports the misplaced range
                types.append(TAny())
            else:
                types.append(self.visit(operand))
        for i, op in enumerate(node.ops):
            left, right = types[i], types[i + 1]
            lnode, rnode = node.operands[i], node.operands[i + 1]
            if isinstance(left, TRange):
                # `x in 1..3 < y`: the range would also be the left of the next link.
                self.err(lnode, "a range LO..HI may only follow `in` or `not in`")
                continue
            if isinstance(left, TAny) or isinstance(right, TAny):
                continue
            if op in ("in", "not in"):
                self._membership(op, lnode, left, rnode, right)
            elif isinstance(right, TRange):
                self.err(rnode, "a range LO..HI may only follow `in` or `not in`")
            elif op in ("==", "!="):
                if not _comparable(left, right):
                    self.err(
                        lnode,
                        f"cannot compare {left.show()} with {right.show()} using `{op}`",
                        self._compare_hint(left, right),
                    )
            elif not (
                (_is_num(left) and _is_num(right))
                or (isinstance(left, TStr) and isinstance(right, TStr))
                or (isinstance(left, TDate) and isinstance(right, TDate))
            ):
                hint = None
                if isinstance(left, (TBool, TEnum)) or isinstance(right, (TBool, TEnum)):
                    hint = "bools and enums have no order; use == or !="
                else:
                    hint = self._compare_hint(left, right)
                self.err(lnode, f"cannot order {left.show()} and {right.show()} with `{op}`", hint)
        return BOOL

    @staticmethod
    def _compare_hint(left: Ty, right: Ty) -> str | None:
        if {type(base(left)), type(base(right))} <= {TStr, TInt, TReal}:
            return "convert with int(s) or str(n)"
        return None

    def _membership(self, op: str, lnode: Expr, left: Ty, rnode: Expr, right: Ty) -> None:
        if isinstance(right, TRange):
            if not _is_int(left):
                self.err(lnode, f"`{op} LO..HI` needs an int on the left, not {left.show()}")
        elif isinstance(right, TList):
            if not _comparable(left, right.elem):
                self.err(
                    lnode,
                    f"cannot look for {left.show()} in a {right.show()}",
                )
        elif isinstance(right, TStr):
            if not isinstance(left, TStr):
                self.err(lnode, f"`{op}` on a str looks for a substring: {left.show()} is no str")
        else:
            self.err(
                rnode,
                f"`{op}` needs a list, a str or a range LO..HI on the right, not {right.show()}",
            )

    def _range(self, node: Range) -> None:
        for bound in (node.lo, node.hi):
            t = self.visit(bound)
            if not _is_int(t):
                self.err(bound, f"range bounds must be int, not {t.show()}")

    def visit_range(self, node: Range) -> Ty:
        self._range(node)
        self.err(node, "a range LO..HI may only follow `in` or `not in`", "write `x in LO..HI`")
        return TRange()

    def visit_if(self, node: IfExpr) -> Ty:
        self.cond(node.cond, "the condition of `if`")
        a = self.visit(node.then)
        b = self.visit(node.orelse)
        j = join(a, b)
        if j is None or isinstance(j, TRange):
            return self.err(
                node, f"the branches of `if` have different types: {a.show()} and {b.show()}"
            )
        return j if a == b else base(j)

    def _with_bound(self, var: str, ty: Ty, body: Expr, what: str) -> None:
        saved = self.bound.get(var)
        self.bound[var] = ty
        try:
            self.cond(body, what)
        finally:
            if saved is None:
                del self.bound[var]
            else:
                self.bound[var] = saved

    def visit_quant(self, node: Quantifier) -> Ty:
        for bound in (node.lo, node.hi):
            t = self.visit(bound)
            if not _is_int(t):
                self.err(bound, f"bounds of `{node.quantifier}` must be int, not {t.show()}")
        self._with_bound(node.var, INT, node.body, f"the body of `{node.quantifier}`")
        return BOOL

    def visit_gen(self, node: Generator) -> Ty:
        t = self.visit(node.iterable)
        elem: Ty = TAny()
        if isinstance(t, TList):
            elem = t.elem
        elif not isinstance(t, TAny):
            self.err(
                node.iterable, f"{node.func}(... for {node.var} in XS) needs a list, not {t.show()}"
            )
        self._with_bound(node.var, elem, node.body, f"the body of {node.func}(...)")
        return BOOL

    def visit_index(self, node: Index) -> Ty:
        b = self.visit(node.base)
        i = self.visit(node.index)
        if not _is_int(i):
            self.err(node.index, f"an index must be an int, not {i.show()}")
        if isinstance(b, TList):
            return b.elem
        if isinstance(b, TStr):
            return STR
        if isinstance(b, TAny):
            return b
        return self.err(node, f"cannot index a {b.show()}; only lists and strings")

    # ------------------------------------------------------------------ count

    def _check_count_comparison(self, node: Compare) -> None:
        consts = self.state.info.const_types
        for operand in node.operands:
            if isinstance(operand, Count):
                self.count_operands.add(id(operand))
                continue
            if isinstance(operand, IntLit):
                continue
            if (
                isinstance(operand, Unary)
                and operand.op == "-"
                and isinstance(operand.operand, IntLit)
            ):
                continue
            if (
                isinstance(operand, Name)
                and operand.id not in self.bound
                and isinstance(consts.get(operand.id), TInt)
            ):
                continue
            self.err(
                operand,
                "a count is compared with an integer literal or an int constant",
                "e.g. count(reset where result == Outcome.ok, per token) <= 1",
            )
        for op in node.ops:
            if op not in ("==", "<", "<=", ">", ">="):
                self.err(
                    node,
                    f"a count cannot be compared with `{op}`",
                    "use <=, <, == (upper bounds) or >=, > (lower bounds)",
                )
                break

    def visit_count(self, node: Count) -> Ty:
        system = self.ctx.system
        if not self.ctx.count_allowed or system is None:
            return self.err(node, "count(...) is only allowed in system invariants")
        if id(node) not in self.count_operands:
            self.err(
                node,
                "count(...) must be compared directly with a bound: count(OP where P) <= N",
            )
        op = next((o for o in system.operations if o.name == node.op), None)
        if op is None:
            return self.err(
                node,
                f"system {system.name} has no operation {node.op!r}",
                _did_you_mean(node.op, [o.name for o in system.operations]),
            )
        sig = self.state.info.signatures.get(op.qualname)
        if sig is None:
            return INT
        if node.per is not None and node.per not in {n for n, _, _ in sig.params}:
            self.err(
                node,
                f"`per {node.per}`: {node.per!r} is not a parameter of {op.qualname}",
                _did_you_mean(node.per, [n for n, _, _ in sig.params])
                or "parameters: " + ", ".join(n for n, _, _ in sig.params),
            )
        if node.where is not None:
            names = ChainMap({n: t for n, t, _ in sig.params}, self.state.info.const_types)
            inner = _ExprChecker(
                self.state,
                _Ctx(
                    file=self.ctx.file,
                    names=names,
                    result=sig.returns,
                    forbidden=self.ctx.forbidden,
                    line=node.line or self.ctx.line,
                    column=node.col or self.ctx.column,
                ),
            )
            inner.bound = dict(self.bound)
            inner.cond(node.where, "the `where` predicate of count")
        return INT

    # ------------------------------------------------------------------ calls

    def visit_call(self, node: Call) -> Ty:
        spec = BUILTIN_FUNCTIONS.get(node.func)
        if spec is None:
            return self._spec_call(node)
        lo, hi, shape = spec
        n = len(node.args)
        if n < lo or (hi is not None and n > hi):
            want = _plural(lo, "argument") if lo == hi else f"at least {_plural(lo, 'argument')}"
            if node.func in ("min", "max"):
                want = "two or more arguments, or one list"
            for a in node.args:
                self.visit(a)
            return self.err(node, f"{node.func}() takes {want} ({n} given)", f"write {shape}")
        if node.func == "matches":
            return self._matches(node)
        args = [self.visit(a) for a in node.args]
        method = getattr(self, "_builtin_" + node.func)
        result: Ty = method(node, args)
        return result

    def _spec_call(self, node: Call) -> Ty:
        for a in node.args:
            self.visit(a)
        sig = self.ctx.callables.get(node.func)
        if sig is not None:
            return sig.returns
        info = self.state.info
        if node.func in info.signatures or any(
            k.endswith("." + node.func) for k in info.signatures
        ):
            return self.err(
                node,
                f"{node.func!r} is a spec function; it can only be called as the CALL of its "
                "own examples (`CALL == VALUE`, `CALL raises E`)",
                "state what it must do with requires/ensures over its parameters and result",
            )
        if node.func in ("all", "any"):
            return self.err(
                node, f"{node.func}() takes a generator", f"write {node.func}(E for x in xs)"
            )
        if node.func == "date":
            return self.err(node, 'date(...) takes one literal string "YYYY-MM-DD"')
        return self.err(
            node,
            f"unknown function {node.func!r}",
            _did_you_mean(node.func, [*BUILTIN_FUNCTIONS, "all", "any"]),
        )

    def _matches(self, node: Call) -> Ty:
        s = self.visit(node.args[0])
        if not _is_str(s):
            self.err(node.args[0], f"matches() needs a str, not {s.show()}")
        pattern = node.args[1]
        if not isinstance(pattern, StrLit):
            self.visit(pattern)
            self.err(
                pattern, "the pattern of matches() must be a string literal", _REGEX_SHAPE_HINT
            )
            return BOOL
        try:
            _regex.check(pattern.value)
        except _regex.RegexError as exc:
            line = pattern.line or self.ctx.line
            col = pattern.col or self.ctx.column
            if pattern.line:
                col = _regex_column(self.ctx.file, line, col, exc.offset, pattern.value)
            self.state.error(
                f"unsupported regular expression: {exc.message}",
                self.ctx.file,
                line,
                col,
                "the supported subset is in LANGUAGE.md §4",
            )
        return BOOL

    def _one(self, node: Call, t: Ty, ok: bool, what: str) -> bool:
        if not ok:
            self.err(node.args[0], f"{node.func}() needs {what}, not {t.show()}")
        return ok

    def _builtin_len(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        self._one(node, t, isinstance(t, (TStr, TList, TAny)), "a str or a list")
        return INT

    def _builtin_abs(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        if not self._one(node, t, _is_num(t), "an int or real"):
            return TAny()
        return base(t)

    def _extreme(self, node: Call, args: list[Ty]) -> Ty:
        if len(args) == 1:
            t = args[0]
            if isinstance(t, TList) and _is_ordered(t.elem):
                return t.elem
            if isinstance(t, TAny):
                return t
            return self.err(
                node.args[0],
                f"{node.func}() of one argument needs a list of int, real, str or date, "
                f"not {t.show()}",
                f"write {node.func}(a, b) to compare two values",
            )
        acc: Ty = TAny()
        for a_node, t in zip(node.args, args, strict=True):
            j = join(acc, t)
            if j is None or not _is_ordered(t):
                return self.err(
                    a_node,
                    f"{node.func}() needs values of one ordered type (int, real, str, date), "
                    f"got {t.show()}" + ("" if isinstance(acc, TAny) else f" after {acc.show()}"),
                )
            acc = j
        return base(acc)

    def _builtin_min(self, node: Call, args: list[Ty]) -> Ty:
        return self._extreme(node, args)

    def _builtin_max(self, node: Call, args: list[Ty]) -> Ty:
        return self._extreme(node, args)

    def _builtin_sum(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        if isinstance(t, TAny):
            return t
        if not self._one(
            node, t, isinstance(t, TList) and _is_num(t.elem), "a list of int or real"
        ):
            return TAny()
        assert isinstance(t, TList)
        return REAL if isinstance(t.elem, TReal) else INT

    def _builtin_int(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        hint = None
        if isinstance(t, TReal):
            hint = "there is no real-to-int conversion; use // for floor division"
        if not _is_str(t):
            self.err(node.args[0], f"int() needs a str, not {t.show()}", hint)
        return INT

    def _builtin_str(self, node: Call, args: list[Ty]) -> Ty:
        self._one(node, args[0], _is_int(args[0]), "an int")
        return STR

    def _strs(self, node: Call, args: list[Ty]) -> Ty:
        for a_node, t in zip(node.args, args, strict=True):
            if not _is_str(t):
                self.err(a_node, f"{node.func}() needs str arguments, not {t.show()}")
        return BOOL

    def _builtin_startswith(self, node: Call, args: list[Ty]) -> Ty:
        return self._strs(node, args)

    def _builtin_endswith(self, node: Call, args: list[Ty]) -> Ty:
        return self._strs(node, args)

    def _builtin_contains(self, node: Call, args: list[Ty]) -> Ty:
        return self._strs(node, args)

    def _builtin_occurrences(self, node: Call, args: list[Ty]) -> Ty:
        xs, v = args
        if isinstance(xs, TAny):
            return INT
        if not isinstance(xs, TList):
            hint = "for strings use contains(s, p) or `p in s`" if isinstance(xs, TStr) else None
            self.err(node.args[0], f"occurrences() needs a list, not {xs.show()}", hint)
        elif not _comparable(xs.elem, v):
            self.err(node.args[1], f"occurrences() looks for {v.show()} in a {xs.show()}")
        return INT

    def _builtin_sorted(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        if isinstance(t, TAny):
            return t
        if isinstance(t, TList) and _is_ordered(t.elem):
            return t
        return self.err(
            node.args[0], f"sorted() needs a list of int, real, str or date, not {t.show()}"
        )


# --------------------------------------------------------------------------- the checker


def _const_deps(decl: ConstDecl) -> set[str]:
    deps = set(free_names(decl.value))
    if isinstance(decl.type, IntType):
        for b in (decl.type.lo, decl.type.hi):
            if isinstance(b, Name):
                deps.add(b.id)
    return deps


class _Checker:
    """One pass over a contract: declarations first, then every obligation."""

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        self.info = TypeInfo(contract)
        self.state = _State(self.info)
        self.const_decls: dict[str, ConstDecl] = {}
        self.param_decls: dict[str, ParamDecl] = {}
        self.functions: dict[str, FunctionDecl] = {}
        self.systems: dict[str, SystemDecl] = {}
        self.operations: dict[str, OperationDecl] = {}

    def error(
        self, message: str, file: str, line: int, column: int, hint: str | None = None
    ) -> None:
        self.state.error(message, file, line, column, hint)

    # ------------------------------------------------------------------ entry

    def run(self) -> TypeInfo:
        self.collect()
        self.exceptions()
        self.consts()
        self.params()
        self.signatures()
        self.binds()
        for ob in self.contract.obligations:
            self.obligation(ob)
        if self.state.errors:
            errors = sorted(
                self.state.errors,
                key=lambda e: (e.file or "", e.line or 0, e.column or 0),
            )
            raise SpecErrors(errors)
        return self.info

    def collect(self) -> None:
        seen: dict[str, tuple[str, int, int]] = {}
        for d in self.contract.declarations:
            if isinstance(d, BindDecl):
                continue
            if d.name in seen:
                first = _pos(*seen[d.name])
                related = [("first declared here", first)] if first is not None else []
                self.state.errors.append(
                    SpecError(
                        f"{d.name!r} is declared twice",
                        _pos(d.file, d.line, d.column),
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
        for m in d.members:
            if m in members:
                self.error(f"enum {d.name} lists member {m!r} twice", d.file, d.line, d.column)
            else:
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
                    _did_you_mean(d.base, [*declared, *BUILTIN_EXCEPTIONS])
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
        column = _exception_column(file, line, column, name)
        self.error(
            f"unknown exception {name!r}",
            file,
            line,
            column,
            _did_you_mean(name, [*self.info.exceptions, *BUILTIN_EXCEPTIONS])
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
                    lit = _matching_literal_column(file, line, col) if ref.line else None
                    if lit is not None:
                        ecol = _regex_column(file, line, lit, exc.offset, ref.pattern)
                    self.error(
                        f"unsupported regular expression: {exc.message}",
                        file,
                        line,
                        ecol,
                        "the supported subset is in LANGUAGE.md §4",
                    )
                    return STR
            return TStr(ref.pattern)
        if isinstance(ref, ListType):
            return TList(self.resolve(ref.elem, file, (line, col)))
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
                _did_you_mean(ref.name, [*self.info.enums, "int", "bool", "real", "str", "date"])
                or "types are int, bool, real, str, date, list[T] and declared enums",
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
                _did_you_mean(expr.id, self.const_decls)
                or "range bounds are integer literals or constants",
            )
            return None
        self.error("range bounds must be integer literals or constants", file, line, col)
        return None

    # ------------------------------------------------------------------ consts

    def consts(self) -> None:
        """Evaluate consts in dependency order; report cycles once per cycle."""
        order: list[str] = []
        state: dict[str, int] = {}  # 1 visiting, 2 done
        cyclic: set[str] = set()

        def visit(name: str, path: list[str]) -> None:
            if state.get(name) == 2:
                return
            if state.get(name) == 1:
                cycle = [*path[path.index(name) :], name]
                if not cyclic.intersection(cycle):
                    d = self.const_decls[name]
                    self.error(
                        "constants depend on each other in a cycle: " + " -> ".join(cycle),
                        d.file,
                        d.line,
                        d.column,
                    )
                cyclic.update(cycle)
                return
            state[name] = 1
            for dep in sorted(_const_deps(self.const_decls[name])):
                if dep in self.const_decls:
                    visit(dep, [*path, name])
            state[name] = 2
            order.append(name)

        for name in self.const_decls:
            visit(name, [])

        for name in order:
            d = self.const_decls[name]
            fallback = (d.line, d.column)
            ty = self.resolve(d.type, d.file, fallback)
            self.info.const_types[name] = ty  # known even without a value: no cascades
            if name in cyclic:
                continue
            bad_dep = [
                n
                for n in free_names(d.value)
                if n in self.const_decls and n not in self.info.const_values
            ]
            forbidden = _Forbidden(
                self.param_decls,
                "a constant cannot use the param {name}",
                "constants are computed from literals and other constants",
            )
            ctx = _Ctx(
                file=d.file,
                names={n: t for n, t in self.info.const_types.items() if n != name},
                result_error="`result` cannot appear in a constant",
                forbidden=forbidden,
                line=d.line,
                column=d.column,
            )
            n_errors = len(self.state.errors)
            vty = _ExprChecker(self.state, ctx).check(d.value)
            if len(self.state.errors) > n_errors or bad_dep or isinstance(ty, TAny):
                continue
            if not assignable(ty, vty):
                self._at_expr(
                    d.value,
                    d.file,
                    fallback,
                    f"constant {name} is declared {ty.show()} but its value is {vty.show()}",
                )
                continue
            try:
                value = evaluate(d.value, {}, self.info.const_values)
            except EvaluationError as exc:
                self._at_expr(
                    d.value,
                    d.file,
                    fallback,
                    f"the value of constant {name} cannot be computed: {exc}",
                )
                continue
            if value is UNDEFINED:
                self._at_expr(
                    d.value,
                    d.file,
                    fallback,
                    f"the value of constant {name} is undefined "
                    "(division by zero, index out of range, int() of a non-number...)",
                )
                continue
            value = _coerce(cast(Value, value), ty)
            if not value_fits(value, ty):
                self._at_expr(
                    d.value,
                    d.file,
                    fallback,
                    f"constant {name} = {_show_value(value)} is outside its type {ty.show()}",
                )
                continue
            self.info.const_values[name] = value

    def _at_expr(self, expr: Expr, file: str, fallback: tuple[int, int], message: str) -> None:
        line, col = (expr.line, expr.col) if expr.line else fallback
        self.error(message, file, line, col)

    # ------------------------------------------------------------------ params, signatures

    def params(self) -> None:
        for d in self.param_decls.values():
            self.info.param_types[d.name] = self.resolve(d.type, d.file, (d.line, d.column))

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
                    _did_you_mean(from_op, [o.name for o in system.operations]),
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
                    _did_you_mean(d.name, targets),
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

    # ------------------------------------------------------------------ obligations

    def obligation(self, ob: Obligation) -> None:
        file, line, col = ob.file, ob.line, ob.column
        consts = self.info.const_types
        kind = ob.kind
        if kind == "invariant":
            param_forbidden = _Forbidden(
                self.param_decls,
                "the param {name} cannot be used in an invariant",
                "params belong to the requirement set; declare {name} const",
            )
        else:
            param_forbidden = _Forbidden(
                self.param_decls,
                "the param {name} cannot be used in a function or operation clause",
                "params belong to the requirement set; pass {name} in as an argument "
                "or declare it const",
            )
        if kind == "requirement":
            names: Mapping[str, Ty] = ChainMap(self.info.param_types, consts)
            ctx = _Ctx(
                file=file,
                names=names,
                line=line,
                column=col,
                result_error="`result` is only allowed in ensures clauses (a "
                "requirement has no result)",
            )
            self.condition(ob, ctx, "a requirement")
            return
        if kind == "invariant":
            system = self.systems.get(ob.owner or "")
            if system is None:
                self.error(f"invariant of unknown system {ob.owner!r}", file, line, col)
                return
            ctx = _Ctx(
                file=file,
                names=consts,
                system=system,
                count_allowed=True,
                forbidden=param_forbidden,
                line=line,
                column=col,
                result_error="`result` is only allowed inside count(OP where ...) in an invariant",
            )
            self.condition(ob, ctx, "an invariant")
            return
        owner = ob.owner or ""
        sig = self.info.signatures.get(owner)
        if sig is None:
            self.error(f"{kind} clause of unknown function or operation {owner!r}", file, line, col)
            return
        if kind == "example":
            self.example(ob, sig, consts)
            return
        names = ChainMap({n: t for n, t, _ in sig.params}, consts)
        what = "operation" if "." in owner else "function"
        if kind == "ensures":
            ctx = _Ctx(
                file=file,
                names=names,
                result=sig.returns,
                forbidden=param_forbidden,
                line=line,
                column=col,
            )
            if isinstance(sig.returns, TNone):
                ctx.result = None
                ctx.result_error = f"`result` has no value: {owner} returns none"
            self.condition(ob, ctx, "an ensures clause")
            return
        ctx = _Ctx(
            file=file,
            names=names,
            forbidden=param_forbidden,
            line=line,
            column=col,
            result_error=(
                f"`result` is only allowed in ensures clauses; a {kind} clause of a {what} "
                "is decided before it returns"
            ),
        )
        if kind == "raises":
            if ob.exception is not None:
                self.exception_name(ob.exception, file, line, col)
            self.condition(ob, ctx, "the condition of raises ... when")
            return
        self.condition(ob, ctx, "a requires clause")

    def condition(self, ob: Obligation, ctx: _Ctx, what: str) -> None:
        n_errors = len(self.state.errors)
        t = _ExprChecker(self.state, ctx).check(ob.expr)
        if len(self.state.errors) == n_errors and not _is_bool(t):
            node = ob.expr
            line, col = (node.line, node.col) if node.line else (ob.line, ob.column)
            self.error(f"{what} must be a bool condition, not {t.show()}", ob.file, line, col)

    def example(self, ob: Obligation, sig: Signature, consts: Mapping[str, Ty]) -> None:
        owner = ob.owner or ""
        bare = owner.rsplit(".", 1)[-1]
        file = ob.file
        expr = ob.expr
        call: Expr
        value: Expr | None = None
        if ob.exception is not None:
            call = expr
            self.exception_name(ob.exception, file, ob.line, ob.column)
        elif isinstance(expr, Compare) and expr.ops == ("==",):
            call, value = expr.operands
        else:
            call = expr
        ctx = _Ctx(
            file=file,
            names=consts,
            line=ob.line,
            column=ob.column,
            result_error="`result` cannot appear in an example; compare the call with "
            "the expected value",
            forbidden=_Forbidden(
                self.param_decls,
                "an example cannot use the param {name}",
                "examples use literals and constants",
            ),
        )
        checker = _ExprChecker(self.state, ctx)

        def at(node: Expr) -> tuple[int, int]:
            return (node.line, node.col) if node.line else (ob.line, ob.column)

        if not isinstance(call, Call) or (ob.exception is None and value is None):
            self.error(
                "an example is `CALL == VALUE` or `CALL raises ExceptionName`", file, *at(expr)
            )
            return
        if call.func != bare:
            if call.func in self.functions or any(
                op.name == call.func for op in self.operations.values()
            ):
                message = f"an example of {owner} must call {bare}, not {call.func}"
            else:
                message = f"an example of {owner} must call {bare}; {call.func!r} is unknown"
            self.error(message, file, *at(call), f"write {bare}(...)")
            for a in call.args:
                checker.check(a)
            if value is not None:
                checker.check(value)
            return
        if len(call.args) != len(sig.params):
            self.error(
                f"{bare}() takes {_plural(len(sig.params), 'argument')} ({len(call.args)} given)",
                file,
                *at(call),
                f"parameters: {', '.join(n for n, _, _ in sig.params)}" if sig.params else None,
            )
        for arg, (pname, pty, _) in zip(call.args, sig.params, strict=False):
            n_errors = len(self.state.errors)
            t = checker.check(arg)
            if len(self.state.errors) > n_errors:
                continue
            if not assignable(pty, t):
                self.error(
                    f"argument {pname!r} of {bare} is {pty.show()}, not {t.show()}", file, *at(arg)
                )
                continue
            try:
                v = evaluate(arg, {}, self.info.const_values)
            except EvaluationError:
                continue  # a const whose own error was reported
            if v is UNDEFINED:
                self.error(f"argument {pname!r} of {bare} is undefined", file, *at(arg))
            elif not value_fits(_coerce(v, pty), pty):  # type: ignore[arg-type]
                self.error(
                    f"argument {pname!r} of {bare} = {_show_value(v)} is outside its type "
                    f"{pty.show()}",
                    file,
                    *at(arg),
                )
        for arg in call.args[len(sig.params) :]:
            checker.check(arg)
        if value is not None:
            n_errors = len(self.state.errors)
            t = checker.check(value)
            if len(self.state.errors) > n_errors:
                return
            if isinstance(sig.returns, TNone):
                self.error(
                    f"{owner} returns none; its examples can only be `{bare}(...) raises E`",
                    file,
                    *at(value),
                )
            elif not (assignable(sig.returns, t) or _comparable(sig.returns, t)):
                self.error(
                    f"{owner} returns {sig.returns.show()}, but the example expects {t.show()}",
                    file,
                    *at(value),
                )


def check(contract: Contract) -> TypeInfo:
    """Type-check ``contract``; ``SpecErrors`` with every problem found."""
    return _Checker(contract).run()


__all__ = [
    "Signature",
    "TypeInfo",
    "assignable",
    "check",
    "join",
    "value_fits",
]
