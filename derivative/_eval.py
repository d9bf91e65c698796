"""The Python-semantics evaluator: the reference meaning of expressions (docs/language.md §7).

The test oracle judges every concrete call with it, and the Z3 encoding and generated
tests are held to it by differential tests, so it implements the language directly and
literally: no translation to Python source, no ``eval``.

Rules (each decided here where the design is silent, and tested in
``tests/unit/test_eval*.py``):

- **Undefinedness is a value.**  Division or modulo by zero, an index out of range or
  negative, ``int(s)`` outside ``[0-9]+``, date arithmetic leaving 0001-01-01..9999-12-31,
  ``min``/``max`` of an empty list, a float computation that overflows, and *any
  operation on a value of the wrong sort* (a ``bool`` where an ``int`` is needed, a
  ``datetime`` for a ``date``, a Python ``list`` for a list, ``nan``) give
  ``UNDEFINED``.  Candidate results may be wrong-typed, and such a result must fail the
  obligation that reads it, never pass it by accident nor crash the judge.  A name bound
  to a non-value (including a list with a non-value inside or mixing sorts) evaluates
  to ``UNDEFINED``.  See ``_evalops`` for sorts and float slack.
- **Left to right, stopping at the first undefined operand**, exactly as Python stops at
  the first exception: ``false and X`` is ``false`` whatever ``X`` is; ``X and false``
  with ``X`` undefined is undefined.  ``or`` likewise; ``A implies B`` evaluates ``B``
  only when ``A`` is true (``false implies X`` is true); ``iff`` evaluates both sides;
  ``if C then A else B`` evaluates ``C`` and one branch.  Operands of arithmetic, call
  arguments, list items and ``base[index]`` are evaluated left to right and the first
  undefined one makes the whole undefined.
- **Comparison chains** as Python: each operand evaluated once, in order, stopping at
  the first false link (later operands are then not evaluated); an undefined operand or
  link reached before that makes the chain undefined.
- **Quantifiers** ``forall/exists v in LO..HI: B``: ``LO`` then ``HI`` (ints), then ``B``
  for ``v = LO, LO+1, ..., HI`` in increasing order, stopping at the first deciding
  value (false for forall, true for exists).  A body that is undefined (or not a bool)
  at some ``v`` *before* a deciding one makes the quantifier undefined; undefined bodies
  after the deciding one are never evaluated.  Empty range: forall true, exists false.
  ``all(B for v in xs)`` / ``any(...)`` are the same over the list, in list order.
  The bound variable shadows any parameter, constant or outer bound variable.
- **Booleans** are only ``true``/``false``: ``and``, ``or``, ``not``, ``implies``, ``iff``,
  ``if`` conditions and quantifier bodies that see a non-bool are undefined.
- Numbers: ``int`` is a Python ``int``, ``real`` a ``Fraction``.  ``/`` always gives a real
  (``7 / 2`` is ``7/2``); ``//`` and ``%`` are Python's floor division and modulo (also
  for negative numbers and reals); ``//`` and ``%`` of two ints give an int, otherwise a
  real (a Fraction, not Python's int from ``Fraction // Fraction``).
- ``*`` is numeric only (no string or list repetition).  ``+`` concatenates strings and
  lists, adds numbers and moves dates (``date + int``, ``int + date``); ``-`` subtracts
  numbers, gives the days between two dates (an int) and moves a date back.
- Order (``< <= > >=``, ``min``, ``max``, ``sorted``) exists for numbers, strings (by code
  point), dates and lists of those (lexicographic, as Python's tuples).  ``bool`` and
  enums have equality only; ordering them is undefined.
- ``x in LO..HI``: ``x`` is one of the integers ``LO..HI`` (a real is in it only if it is
  integral; a float if it is close to such an integer).  ``x in xs`` compares with
  ``==`` (slack for floats); ``p in s`` is substring.
- ``str(n)`` is defined for ints only (any size, not limited by Python's 4300-digit rule);
  ``int(s)`` for ASCII digit strings only (leading zeros allowed, any length).
- ``count(...)`` is answered by ``count_hook(node)``; without a hook it is undefined.
  A call of a non-built-in function (a spec function in an ``example``) is answered by
  ``call_hook(node, args)``.

Caller mistakes are not undefinedness and raise ``EvaluationError`` (a
``DerivativeError``): a name bound nowhere (not in the environment, not a constant, not a
bound variable), ``result`` without ``"result"`` in the environment, an unknown function
without a ``call_hook``, a built-in called with the wrong number of arguments, a range
``LO..HI`` that is not the right operand of ``in``/``not in``, a malformed literal.  The
type checker rules all of these out, so they indicate a bug in whoever called us.

Resource exhaustion is not undefinedness either (the expression has a value; we could not
compute it): more than ``max_iterations`` quantifier steps in one evaluation, Python's
recursion limit (an absurdly deep expression) or ``MemoryError`` raise
``EvaluationLimitError``, so that neither a requires nor an ensures silently becomes
undefined because of the machine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Final, cast

from derivative import _evalops as ops
from derivative import _evaltext as text
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
from derivative._builtins import takes
from derivative._errors import DerivativeError
from derivative._evalops import DEFAULT_REL_TOL, Outcome, RuntimeValue
from derivative._values import UNDEFINED, DictValue, EnumValue, TupleValue, _Undefined
from derivative._walk import ExprVisitor

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "EvaluationError",
    "EvaluationLimitError",
    "Evaluator",
    "Outcome",
    "RuntimeValue",
    "evaluate",
]

DEFAULT_MAX_ITERATIONS: Final = 1_000_000
"""Quantifier steps allowed in one evaluation before ``EvaluationLimitError``."""

CountHook = Callable[[Count], Outcome]
CallHook = Callable[[Call, tuple[RuntimeValue, ...]], Outcome]

_EMPTY: Final[Mapping[str, object]] = MappingProxyType({})


class EvaluationError(DerivativeError):
    """The evaluator was called with something the type checker would have refused."""


class EvaluationLimitError(EvaluationError):
    """An evaluation needed more steps, stack or memory than allowed; it is not undefined."""


# --------------------------------------------------------------------------- literals

_REAL_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?|-?[0-9]+/[0-9]+", re.ASCII)


@lru_cache(maxsize=4096)
def _real(text: str) -> Fraction:
    # Only plain decimals or p/q: ``Fraction("1e999999999")`` would try to build the number.
    if not _REAL_TEXT.fullmatch(text):
        raise EvaluationError(f"malformed real literal {text!r}")
    try:
        return Fraction(text)
    except ZeroDivisionError:
        raise EvaluationError(f"malformed real literal {text!r}") from None


@lru_cache(maxsize=4096)
def _date(text: str) -> date:
    try:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text, re.ASCII):
            raise ValueError(text)
        return date.fromisoformat(text)
    except ValueError:
        raise EvaluationError(f"malformed date literal {text!r}") from None


# --------------------------------------------------------------------------- built-ins

# name -> implementation over evaluated arguments, one per name of the one table in
# derivative._builtins (tests/unit/test_readings.py holds them in step); the arities
# come from that table
_Builtin = Callable[[ops.Comparer, tuple[RuntimeValue, ...]], Outcome]
_BUILTINS: Final[dict[str, _Builtin]] = {
    "len": lambda c, a: ops.length(a[0]),
    "abs": lambda c, a: ops.absolute(a[0]),
    "min": lambda c, a: ops.extreme(a, largest=False),
    "max": lambda c, a: ops.extreme(a, largest=True),
    "sum": lambda c, a: ops.total(a[0]),
    "int": lambda c, a: ops.int_of_str(a[0]),
    "str": lambda c, a: ops.str_of_int(a[0]),
    "matches": lambda c, a: ops.matches(a[0], a[1]),
    "startswith": lambda c, a: ops.startswith(a[0], a[1]),
    "endswith": lambda c, a: ops.endswith(a[0], a[1]),
    "contains": lambda c, a: ops.contains(a[0], a[1]),
    "occurrences": lambda c, a: c.occurrences(a[0], a[1]),
    "sorted": lambda c, a: ops.sort_list(a[0]),
    "product": lambda c, a: ops.product(a[0]),
    "reversed": lambda c, a: ops.reverse(a[0]),
    # text built-ins (derivative/_evaltext.py)
    "lower": lambda c, a: text.lower(a[0]),
    "upper": lambda c, a: text.upper(a[0]),
    "strip": lambda c, a: text.strip(a[0]),
    "split": lambda c, a: text.split(a[0], a[1]),
    "join": lambda c, a: text.join(a[0], a[1]),
    "ord": lambda c, a: text.code_of(a[0]),
    "chr": lambda c, a: text.char_of(a[0]),
    "get": lambda c, a: ops.dict_get(*a),
    "keys": lambda c, a: ops.dict_keys(a[0]),
    "value": lambda c, a: ops.some_value(a[0]),
}

_BINOPS: Final = {**ops.BINOPS, "**": text.power}

BUILTIN_NAMES: Final = frozenset(_BUILTINS)

_SAFETY_NET = (ArithmeticError, ValueError, TypeError)
"""Exceptions an operation may still raise on values no sort check foresaw (a hostile
``str`` subclass, say); they mean the operation is undefined.  Sort checks come first,
so in practice these are never raised."""


# --------------------------------------------------------------------------- the walker


class _IntRange:
    """The value of ``LO..HI`` on the right of ``in``; never escapes a comparison."""

    __slots__ = ("hi", "lo")

    def __init__(self, lo: int, hi: int) -> None:
        self.lo = lo
        self.hi = hi


_MISSING: Final = object()


class _Walker(ExprVisitor[Outcome]):
    """One evaluation: the environment, bound variables and the step budget."""

    def __init__(self, ev: Evaluator, env: Mapping[str, object]) -> None:
        self.ev = ev
        self.cmp = ev.comparer
        self.env = env
        self.bound: dict[str, Outcome] = {}
        self.steps_left = ev.max_iterations
        # id of an outside list -> (the list, kept alive so the id stays its own; is it a value?)
        self.checked: dict[int, tuple[object, bool]] = {}

    def admit(self, v: object) -> Outcome:
        """A value from outside (environment, constants, hooks): itself if it is a value.

        Lists are checked through (every element a value, one sort throughout) once per
        evaluation, so everything the walker handles afterwards is well-formed and an
        element taken out of a list never needs checking again.
        """
        if isinstance(v, _Undefined):
            return v
        if isinstance(v, (tuple, TupleValue, DictValue)):
            seen = self.checked.get(id(v))
            if seen is None:
                seen = self.checked[id(v)] = (v, ops.sort_of(v) is not None)
            return cast(RuntimeValue, v) if seen[1] else UNDEFINED
        if ops.admissible(v):
            return cast(RuntimeValue, v)
        return UNDEFINED

    def generic_visit(self, node: Expr) -> Outcome:
        raise EvaluationError(f"cannot evaluate a node of kind {node.kind!r}")

    # ----------------------------------------------------------------- leaves

    def visit_int(self, node: IntLit) -> Outcome:
        return int(node.value)

    def visit_real(self, node: RealLit) -> Outcome:
        return _real(node.value)

    def visit_str(self, node: StrLit) -> Outcome:
        return node.value

    def visit_bool(self, node: BoolLit) -> Outcome:
        return bool(node.value)

    def visit_date(self, node: DateLit) -> Outcome:
        return _date(node.value)

    def visit_enum_member(self, node: EnumMember) -> Outcome:
        return EnumValue(node.enum, node.member)

    def visit_list(self, node: ListLit) -> Outcome:
        items: list[RuntimeValue] = []
        for item in node.items:
            v = self.visit(item)
            if isinstance(v, _Undefined):
                return v
            items.append(v)
        return tuple(items)

    def visit_tuple(self, node: TupleLit) -> Outcome:
        items: list[RuntimeValue] = []
        for item in node.items:
            v = self.visit(item)
            if isinstance(v, _Undefined):
                return v
            items.append(v)
        return TupleValue(tuple(items))

    def visit_none(self, node: NoneLit) -> Outcome:
        return None

    def visit_dict(self, node: DictLit) -> Outcome:
        pairs: list[tuple[RuntimeValue, RuntimeValue]] = []
        for k_node, v_node in zip(node.keys, node.values, strict=True):
            k = self.visit(k_node)
            if isinstance(k, _Undefined):
                return k
            v = self.visit(v_node)
            if isinstance(v, _Undefined):
                return v
            pairs.append((k, v))
        return ops.make_dict(pairs)

    def visit_name(self, node: Name) -> Outcome:
        if node.id in self.bound:
            return self.bound[node.id]
        v = self.env.get(node.id, _MISSING)
        if v is _MISSING:
            v = self.ev.consts.get(node.id, _MISSING)
        if v is _MISSING:
            raise EvaluationError(f"unbound name {node.id!r}")
        return self.admit(v)

    def visit_result(self, node: Result) -> Outcome:
        v = self.env.get("result", _MISSING)
        if v is _MISSING:
            raise EvaluationError("'result' is not bound (the environment has no \"result\")")
        return self.admit(v)

    def visit_count(self, node: Count) -> Outcome:
        if self.ev.count_hook is None:
            return UNDEFINED
        return self.admit(self.ev.count_hook(node))

    # ----------------------------------------------------------------- operators

    def visit_unary(self, node: Unary) -> Outcome:
        v = self.visit(node.operand)
        if isinstance(v, _Undefined):
            return v
        if node.op == "not":
            return (not v) if isinstance(v, bool) else UNDEFINED
        return _guarded(ops.neg, v)

    def visit_binop(self, node: BinOp) -> Outcome:
        """Folded from the left, one step at a time, stopping at the first undefined step."""
        acc = self.visit(node.operands[0])
        step = _BINOPS[node.op]
        for operand in node.operands[1:]:
            if isinstance(acc, _Undefined):
                return acc
            b = self.visit(operand)
            if isinstance(b, _Undefined):
                return b
            acc = _guarded(step, acc, b)
        return acc

    def _bool(self, node: Expr) -> bool | _Undefined:
        v = self.visit(node)
        return v if isinstance(v, bool) else UNDEFINED

    def visit_boolop(self, node: BoolOp) -> Outcome:
        op = node.op
        if op in ("and", "or"):
            # Left to right; the first operand that decides (false for and, true for or)
            # ends it, and an undefined operand met before one does makes it undefined.
            deciding = op == "or"
            for operand in node.operands:
                v = self._bool(operand)
                if isinstance(v, _Undefined) or v is deciding:
                    return v
            return not deciding
        left, right = node.operands
        a = self._bool(left)
        if isinstance(a, _Undefined):
            return a
        if op == "implies" and not a:
            return True
        b = self._bool(right)
        if isinstance(b, _Undefined):
            return b
        if op == "iff":
            return a == b
        return b  # implies whose left side held

    def visit_if(self, node: IfExpr) -> Outcome:
        c = self._bool(node.cond)
        if isinstance(c, _Undefined):
            return c
        return self.visit(node.then if c else node.orelse)

    def visit_compare(self, node: Compare) -> Outcome:
        left: Outcome | _IntRange = self.visit(node.operands[0])
        if isinstance(left, _Undefined):
            return left
        for op, right_node in zip(node.ops, node.operands[1:], strict=True):
            right: Outcome | _IntRange
            if isinstance(right_node, Range):
                right = self._range(right_node)
            else:
                right = self.visit(right_node)
            if isinstance(right, _Undefined):
                return right
            link = self._link(op, left, right)
            if link is not True:
                return link
            left = right
        return True

    def _range(self, node: Range) -> _IntRange | _Undefined:
        lo = self.visit(node.lo)
        if isinstance(lo, _Undefined):
            return lo
        hi = self.visit(node.hi)
        if isinstance(hi, _Undefined):
            return hi
        if not (ops.is_int(lo) and ops.is_int(hi)):
            return UNDEFINED
        return _IntRange(lo, hi)

    def _link(
        self, op: str, a: RuntimeValue | _IntRange, b: RuntimeValue | _IntRange
    ) -> bool | _Undefined:
        if isinstance(a, _IntRange):
            return UNDEFINED
        try:
            if op in ("in", "not in"):
                if isinstance(b, _IntRange):
                    r = self.cmp.in_range(a, b.lo, b.hi)
                else:
                    r = self.cmp.member(a, b)
                if op == "not in" and isinstance(r, bool):
                    return not r
                return r
            if isinstance(b, _IntRange):
                return UNDEFINED
            return self.cmp.compare(op, a, b)
        except _SAFETY_NET:
            return UNDEFINED
        except MemoryError:
            raise EvaluationLimitError("out of memory while comparing") from None

    def visit_range(self, node: Range) -> Outcome:
        raise EvaluationError("a range LO..HI may only be the right operand of 'in'/'not in'")

    def visit_index(self, node: Index) -> Outcome:
        base = self.visit(node.base)
        if isinstance(base, _Undefined):
            return base
        i = self.visit(node.index)
        if isinstance(i, _Undefined):
            return i
        return _guarded(ops.index, base, i)

    def visit_slice(self, node: Slice) -> Outcome:
        """Base, then ``lo``, then ``hi`` (as Python evaluates them); never undefined itself."""
        parts: list[RuntimeValue | None] = []
        for part in (node.base, node.lo, node.hi):
            if part is None:
                parts.append(None)
                continue
            v = self.visit(part)
            if isinstance(v, _Undefined):
                return v
            parts.append(v)
        return _guarded(ops.slice_of, *parts)

    def visit_call(self, node: Call) -> Outcome:
        builtin = _BUILTINS.get(node.func)
        if builtin is None and self.ev.call_hook is None:
            raise EvaluationError(f"unknown function {node.func!r} (no call_hook given)")
        if builtin is not None and not takes(node.func, len(node.args)):
            n = len(node.args)
            raise EvaluationError(f"{node.func}() called with {n} argument{'s' if n != 1 else ''}")
        args: list[RuntimeValue] = []
        for arg in node.args:
            v = self.visit(arg)
            if isinstance(v, _Undefined):
                return v
            args.append(v)
        if builtin is None:
            assert self.ev.call_hook is not None
            return self.admit(self.ev.call_hook(node, tuple(args)))
        return _guarded(builtin, self.cmp, tuple(args))

    # ----------------------------------------------------------------- binders

    def _bind_and_test(
        self, var: str, values: Iterable[RuntimeValue], node: Expr, stop_on: bool
    ) -> Outcome:
        """Evaluate ``node`` with ``var`` bound to each of ``values`` in order.

        Returns ``stop_on`` at the first body equal to it, ``UNDEFINED`` at the first
        undefined or non-bool body, else ``not stop_on``.
        """
        saved = self.bound.get(var, _MISSING)
        try:
            for v in values:
                self.bound[var] = v
                b = self._bool(node)
                if isinstance(b, _Undefined):
                    return b
                if b is stop_on:
                    return stop_on
            return not stop_on
        finally:
            if saved is _MISSING:
                self.bound.pop(var, None)
            else:
                self.bound[var] = saved  # type: ignore[assignment]  # saved is an Outcome

    def _step(self) -> None:
        self.steps_left -= 1
        if self.steps_left < 0:
            raise EvaluationLimitError(
                f"more than {self.ev.max_iterations} quantifier steps in one evaluation"
            )

    def _steps(self, lo: int, hi: int) -> Iterator[int]:
        for i in range(lo, hi + 1):
            self._step()
            yield i

    def visit_quant(self, node: Quantifier) -> Outcome:
        lo = self.visit(node.lo)
        if isinstance(lo, _Undefined):
            return lo
        hi = self.visit(node.hi)
        if isinstance(hi, _Undefined):
            return hi
        if not (ops.is_int(lo) and ops.is_int(hi)):
            return UNDEFINED
        stop_on = node.quantifier == "exists"
        return self._bind_and_test(node.var, self._steps(lo, hi), node.body, stop_on)

    def visit_gen(self, node: Generator) -> Outcome:
        xs = self.visit(node.iterable)
        if isinstance(xs, _Undefined):
            return xs
        if not isinstance(xs, tuple) or ops.sort_of(xs) is None:
            return UNDEFINED
        stop_on = node.func == "any"
        return self._bind_and_test(node.var, xs, node.body, stop_on)


    def visit_listcomp(self, node: ListComp) -> Outcome:
        """Python's list comprehension: element by element, the condition and then (where
        it holds) the item; the first undefined part makes the whole undefined."""
        xs = self.visit(node.iterable)
        if isinstance(xs, _Undefined):
            return xs
        if not isinstance(xs, tuple) or ops.sort_of(xs) is None:
            return UNDEFINED
        saved = self.bound.get(node.var, _MISSING)
        out: list[RuntimeValue] = []
        try:
            for x in xs:
                self._step()
                self.bound[node.var] = x
                if node.cond is not None:
                    keep = self._bool(node.cond)
                    if isinstance(keep, _Undefined):
                        return keep
                    if not keep:
                        continue
                item = self.visit(node.body)
                if isinstance(item, _Undefined):
                    return item
                out.append(item)
        finally:
            if saved is _MISSING:
                self.bound.pop(node.var, None)
            else:
                self.bound[node.var] = saved  # type: ignore[assignment]  # saved is an Outcome
        items = tuple(out)
        # Items of one list must share a sort (an int item and a float item do; a float
        # result read by the body may make them mixed, which is no list value).
        return items if ops.sort_of(items) is not None else UNDEFINED


def _guarded(fn: Callable[..., Outcome], *args: object) -> Outcome:
    try:
        return fn(*args)
    except _SAFETY_NET:
        return UNDEFINED
    except MemoryError:
        raise EvaluationLimitError("out of memory while evaluating") from None


# --------------------------------------------------------------------------- the API


class Evaluator:
    """Evaluates expressions with the language's meaning (see the module docstring).

    ``consts`` are the spec's constant values (``TypeInfo.const_values``); ``rel_tol`` the
    relative slack of float comparisons (the spec's ``tolerance``); ``count_hook``
    answers ``count(...)`` in invariants; ``call_hook`` answers calls of spec functions
    (in examples) from the node and its evaluated arguments; ``max_iterations`` bounds
    quantifier steps per evaluation.  An ``Evaluator`` holds no per-call state and can
    be shared between threads.
    """

    def __init__(
        self,
        consts: Mapping[str, object] = _EMPTY,
        rel_tol: float = DEFAULT_REL_TOL,
        count_hook: CountHook | None = None,
        *,
        call_hook: CallHook | None = None,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
    ) -> None:
        self.consts = consts
        self.rel_tol = rel_tol
        self.comparer = ops.Comparer(rel_tol)
        self.count_hook = count_hook
        self.call_hook = call_hook
        self.max_iterations = max_iterations

    def eval(self, expr: Expr, env: Mapping[str, object] = _EMPTY) -> Outcome:
        """The value of ``expr`` in ``env`` (``env["result"]`` for ``result``), or UNDEFINED."""
        try:
            return _Walker(self, env).visit(expr)
        except RecursionError:
            raise EvaluationLimitError("expression too deeply nested to evaluate") from None
        except MemoryError:
            raise EvaluationLimitError("out of memory while evaluating") from None

    def holds(self, expr: Expr, env: Mapping[str, object] = _EMPTY) -> bool | _Undefined:
        """Whether the condition ``expr`` is true; UNDEFINED if undefined or not a bool."""
        v = self.eval(expr, env)
        return v if isinstance(v, bool) else UNDEFINED


def evaluate(
    expr: Expr, env: Mapping[str, object], consts: Mapping[str, object] | None = None
) -> Outcome:
    """Evaluate once with default settings: ``Evaluator(consts or {}).eval(expr, env)``."""
    return Evaluator(consts if consts is not None else _EMPTY).eval(expr, env)
