"""Hypothesis strategies for the valid inputs of a function or operation.

Inputs are built from the declared types and the ``requires`` clauses, by *bounds*,
not by rejection (docs/decisions.md): filtering generated values with ``assume`` wastes
most examples on a narrow precondition, and Hypothesis gives up when too many are
rejected:

- each ``requires`` is split into its ``and``-conjuncts; a conjunct that bounds one
  parameter by constants is *absorbed* into that parameter's strategy: ``x >= 0``,
  ``0 <= x < N``, ``x in 1..9`` → ``st.integers(min, max)``; ``len(s) <= 6`` →
  ``st.text(max_size=6)``; ``matches(s, RE)`` and ``str matching RE`` →
  ``st.from_regex(to_python(RE), fullmatch=True)``; date comparisons → ``st.dates``;
  ``all(0 <= e <= 9 for e in xs)`` bounds the elements of ``st.lists``; ``x == C`` →
  ``st.just(C)``.  Enums are ``sampled_from`` their members, ``bool`` is
  ``booleans()``, ``real`` is finite floats (the candidate receives floats).
- every other conjunct is *residual*.  Where there is none, the bounded strategy is
  (almost) always valid and the full precondition is a cheap filter.
- where there is a residual conjunct (``x == y + 1``, ``y % 7 == 3``, ``startswith``,
  several variables), the draw is a *seed*: if the seed is valid it is used as it is,
  otherwise Z3 is asked for a valid input near it (``_boundary.Space.near``), and if
  that fails one of a few precomputed models is used.  So a precondition the solver
  shows satisfiable never makes Hypothesis give up (``filter_too_much``), the inputs
  still vary with the draw and shrink with it.  Only a precondition Z3 cannot encode
  falls back to a plain filter.

Every input finally passes the oracle's validity test (the evaluator's reading of the
``requires`` and the types): the solver proposes, the reference semantics decides.

*Decided*: a ``real`` parameter without bounds is drawn from [-1e9, 1e9] so that a
correct implementation's float arithmetic does not overflow into an undefined
``ensures``; a string or list without a length bound is Hypothesis's default size.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from fractions import Fraction
from typing import Any, Final

from hypothesis import Phase, reject
from hypothesis import strategies as st

from derivative import _regex
from derivative._ast import BoolLit, BoolOp, Call, Compare, Expr, Generator, Name, Range, Unary
from derivative._eval import Evaluator
from derivative._evalops import is_date, is_num
from derivative._types import (
    TBool,
    TDate,
    TDict,
    TEnum,
    TInt,
    TList,
    TOptional,
    TReal,
    TStr,
    TTuple,
    Ty,
)
from derivative._values import DictValue, EnumValue, TupleValue, _Undefined
from derivative._walk import free_names

__all__ = [
    "REAL_LIMIT",
    "Box",
    "InputGen",
    "analyse",
    "conjuncts",
    "value_strategy",
]

_GENERATE: Final = (Phase.generate,)

REAL_LIMIT: Final = 1e9
"""Magnitude of an unbounded ``real`` parameter's draws (see the module docstring)."""

Near = Callable[[Mapping[str, object], frozenset[str]], "dict[str, object] | None"]
Admits = Callable[[Mapping[str, object]], bool]

_FLIP: Final = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


# --------------------------------------------------------------------------- boxes


@dataclass
class Box:
    """What the absorbed conjuncts say about one parameter (or a list's elements)."""

    lo: Any = None
    hi: Any = None
    lo_open: bool = False
    hi_open: bool = False
    len_lo: int = 0
    len_hi: int | None = None
    patterns: list[str] = field(default_factory=list)
    exact: tuple[Any] | None = None
    elem: Box | None = None
    alphabet: str = ""
    """The alphabet of half of a string parameter's draws (see ``spec_alphabet``)."""
    members: tuple[str, ...] = ()
    """Regexes the spec tests strings against (``spec_regexes``): some draws are members."""

    def lower(self, value: Any, strict: bool) -> None:
        if self.lo is None or value > self.lo or (value == self.lo and strict):
            self.lo, self.lo_open = value, strict

    def upper(self, value: Any, strict: bool) -> None:
        if self.hi is None or value < self.hi or (value == self.hi and strict):
            self.hi, self.hi_open = value, strict

    def length(self, op: str, n: int) -> None:
        if op in (">", ">="):
            self.len_lo = max(self.len_lo, n + 1 if op == ">" else n)
        elif op in ("<", "<="):
            m = n - 1 if op == "<" else n
            self.len_hi = m if self.len_hi is None else min(self.len_hi, m)
        elif op == "==":
            self.len_lo = max(self.len_lo, n)
            self.len_hi = n if self.len_hi is None else min(self.len_hi, n)


def conjuncts(expr: Expr) -> list[Expr]:
    """The top-level ``and``-operands of ``expr`` (left to right)."""
    if isinstance(expr, BoolOp) and expr.op == "and":
        return list(expr.operands)  # a run is flat: no operand is itself an `and`
    return [expr]


class _Analyser:
    def __init__(self, params: Mapping[str, Ty], evaluator: Evaluator) -> None:
        self.params = params
        self.evaluator = evaluator
        self.consts = frozenset(evaluator.consts)
        self.boxes: dict[str, Box] = {n: Box() for n in params}

    def constant(self, e: Expr) -> tuple[bool, object]:
        """(True, value) when ``e`` is a defined expression over constants only."""
        if isinstance(e, Range) or not free_names(e) <= self.consts:
            return False, None
        try:
            v = self.evaluator.eval(e)
        except Exception:
            return False, None
        if isinstance(v, _Undefined):
            return False, None
        return True, v

    def subject(self, e: Expr, bound: str | None = None) -> tuple[str, str] | None:
        """("value"|"len", parameter) when ``e`` is a parameter or ``len`` of one."""
        if isinstance(e, Name) and (e.id == bound or (bound is None and e.id in self.params)):
            return "value", e.id
        if isinstance(e, Call) and e.func == "len" and len(e.args) == 1:
            a = e.args[0]
            if isinstance(a, Name) and (a.id == bound or (bound is None and a.id in self.params)):
                return "len", a.id
        return None

    def absorb(self, e: Expr, box_of: Callable[[str], Box | None], bound: str | None,
               types: Callable[[str], Ty | None]) -> bool:
        """Record ``e`` in the boxes if it is a bound; whether it was entirely absorbed."""
        if isinstance(e, BoolLit) and e.value:
            return True
        if isinstance(e, BoolOp) and e.op == "and":
            absorbed = [self.absorb(o, box_of, bound, types) for o in e.operands]
            return all(absorbed)
        if isinstance(e, Call) and e.func == "matches" and len(e.args) == 2:
            s = self.subject(e.args[0], bound)
            ok, pattern = self.constant(e.args[1])
            if s is not None and s[0] == "value" and ok and isinstance(pattern, str):
                box = box_of(s[1])
                if box is not None and isinstance(types(s[1]), TStr):
                    box.patterns.append(pattern)
                    return True
            return False
        if isinstance(e, Generator) and e.func == "all" and bound is None:
            s = self.subject(e.iterable)
            if s is None or s[0] != "value":
                return False
            ty = self.params[s[1]]
            if not isinstance(ty, TList):
                return False
            box = self.boxes[s[1]]
            if box.elem is None:
                box.elem = Box()
            elem_box = box.elem
            elem_ty = ty.elem
            return self.absorb(
                e.body,
                lambda n: elem_box if n == e.var else None,
                e.var,
                lambda n: elem_ty if n == e.var else None,
            )
        if isinstance(e, Compare):
            return all(
                self.link(op, e.operands[i], e.operands[i + 1], box_of, bound, types)
                for i, op in enumerate(e.ops)
            )
        return False

    def link(self, op: str, a: Expr, b: Expr, box_of: Callable[[str], Box | None],
             bound: str | None, types: Callable[[str], Ty | None]) -> bool:
        if isinstance(b, Range):
            s = self.subject(a, bound)
            ok_lo, lo = self.constant(b.lo)
            ok_hi, hi = self.constant(b.hi)
            if op != "in" or s is None or not (ok_lo and ok_hi):
                return False
            return self.bound(s, ">=", lo, box_of, types) and self.bound(
                s, "<=", hi, box_of, types
            )
        s = self.subject(a, bound)
        ok, value = self.constant(b)
        if s is None or not ok:
            s = self.subject(b, bound)
            ok, value = self.constant(a)
            op = _FLIP.get(op, op)
            if s is None or not ok:
                return False
        return self.bound(s, op, value, box_of, types)

    def bound(self, s: tuple[str, str], op: str, value: object,
              box_of: Callable[[str], Box | None], types: Callable[[str], Ty | None]) -> bool:
        what, name = s
        box, ty = box_of(name), types(name)
        if box is None or ty is None or op not in ("<", "<=", ">", ">=", "=="):
            return False
        if what == "len":
            if not is_num(value) or not isinstance(ty, (TStr, TList)):
                return False
            n = Fraction(value)
            if op in ("<", "<="):
                m = math.floor(n) if (op == "<=" or n.denominator != 1) else int(n) - 1
                box.length("<=", m)
            elif op in (">", ">="):
                m = math.ceil(n) if (op == ">=" or n.denominator != 1) else int(n) + 1
                box.length(">=", m)
            else:
                if n.denominator != 1:
                    box.length("<=", -1)  # no length equals a fraction: empty
                else:
                    box.length("==", int(n))
            return True
        if isinstance(ty, TInt) and is_num(value):
            n = Fraction(value)
            if op == "==":
                if n.denominator != 1:
                    box.lower(1, False)
                    box.upper(0, False)  # empty
                else:
                    box.exact = (int(n),)
                return True
            if op in (">", ">="):
                box.lower(math.floor(n) + 1 if op == ">" else math.ceil(n), False)
            else:
                box.upper(math.ceil(n) - 1 if op == "<" else math.floor(n), False)
            return True
        if isinstance(ty, TReal) and is_num(value):
            f = Fraction(value)
            if op == "==":
                box.exact = (f,)
            elif op in (">", ">="):
                box.lower(f, op == ">")
            else:
                box.upper(f, op == "<")
            return True
        if isinstance(ty, TDate) and is_date(value):
            if op == "==":
                box.exact = (value,)
            elif op in (">", ">="):
                box.lower(value + timedelta(days=1) if op == ">" else value, False)
            else:
                box.upper(value - timedelta(days=1) if op == "<" else value, False)
            return True
        if op == "==" and isinstance(ty, (TStr, TBool, TEnum)):
            box.exact = (value,)
            return True
        return False


def analyse(
    params: Mapping[str, Ty], requires: Sequence[Expr], evaluator: Evaluator
) -> tuple[dict[str, Box], list[Expr]]:
    """Boxes of the parameters and the residual conjuncts of ``requires``."""
    a = _Analyser(params, evaluator)
    residual: list[Expr] = []
    for r in requires:
        for c in conjuncts(r):
            # A conjunct over several parameters is never absorbed.
            if not a.absorb(c, a.boxes.get, None, params.get):
                residual.append(c)
    for n, ty in params.items():
        _refine_box(a.boxes[n], ty)
    return a.boxes, residual


_NEGATED: Final = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def negated_conjuncts(expr: Expr) -> list[Expr]:
    """``not expr`` as conjuncts, where De Morgan and a flipped comparison say it exactly
    (``not (d < 0 or d > c)`` is ``d >= 0`` and ``d <= c``); anything else stays one
    ``not`` conjunct (residual, checked by the evaluator)."""
    if isinstance(expr, BoolOp) and expr.op == "or":
        return [c for o in expr.operands for c in negated_conjuncts(o)]
    if isinstance(expr, Unary) and expr.op == "not":
        return conjuncts(expr.operand)
    if isinstance(expr, Compare) and len(expr.ops) == 1 and expr.ops[0] in _NEGATED:
        return [Compare(ops=(_NEGATED[expr.ops[0]],), operands=expr.operands,
                        line=expr.line, col=expr.col)]
    return [Unary(op="not", operand=expr, line=expr.line, col=expr.col)]


def derive_bounds(boxes: Mapping[str, Box], params: Mapping[str, Ty],
                  residual: Sequence[Expr]) -> None:
    """Bounds one parameter gets from another's: ``days <= cycle`` with ``cycle`` in
    ``28..31`` bounds ``days`` by 31. Over-approximate (the conjunct itself is still
    checked), so a seed is drawn where the valid inputs are, not far away and then
    repaired onto the nearest edge (which hid every input that is not on an edge)."""
    ints = {n for n, t in params.items() if isinstance(t, TInt)}
    for _ in range(2):  # chains of two
        for c in residual:
            if not (isinstance(c, Compare) and len(c.ops) == 1 and c.ops[0] in _NEGATED
                    and all(isinstance(o, Name) and o.id in ints for o in c.operands)):
                continue
            a, b = (typing.cast(Name, o).id for o in c.operands)
            op = c.ops[0]
            if op in (">", ">="):
                a, b, op = b, a, "<" if op == ">" else "<="
            if op in ("<", "<="):
                _at_most(boxes[a], boxes[b])
            elif op == "==":
                _at_most(boxes[a], boxes[b])
                _at_most(boxes[b], boxes[a])


def _at_most(low: Box, high: Box) -> None:
    """``low <= high``: low's upper bound is at most high's, high's lower at least low's."""
    if high.hi is not None:
        low.upper(high.hi, False)
    if low.lo is not None:
        high.lower(low.lo, False)


def _refine_box(box: Box, ty: Ty) -> None:
    """Add the declared type's refinement to the box."""
    if isinstance(ty, TInt):
        if ty.lo is not None:
            box.lower(ty.lo, False)
        if ty.hi is not None:
            box.upper(ty.hi, False)
    elif isinstance(ty, TStr) and ty.pattern is not None:
        box.patterns.insert(0, ty.pattern)
    elif isinstance(ty, TList):
        if box.elem is None:
            box.elem = Box()
        _refine_box(box.elem, ty.elem)


# --------------------------------------------------------------------------- strategies


def value_strategy(ty: Ty, box: Box | None = None) -> tuple[st.SearchStrategy[Any], bool]:
    """(strategy of values of ``ty`` within ``box``, whether the box was fully used).

    Values are in the language's representation except that reals are floats.  The
    flag is false where part of the box could not be expressed (a length bound on a
    regex-matched string, a second regex): that part must be checked by a filter.
    """
    box = box or Box()
    if box.exact is not None:
        v = box.exact[0]
        if isinstance(ty, TReal):
            return st.just(float(v)), True
        if isinstance(ty, TEnum) and not isinstance(v, EnumValue):
            return st.nothing(), True
        return st.just(v), True
    if isinstance(ty, TInt):
        lo = None if box.lo is None else int(box.lo)
        hi = None if box.hi is None else int(box.hi)
        if lo is not None and hi is not None and lo > hi:
            return st.nothing(), True
        return st.integers(min_value=lo, max_value=hi), True
    if isinstance(ty, TBool):
        return st.booleans(), True
    if isinstance(ty, TReal):
        return _reals(box)
    if isinstance(ty, TStr):
        return _strings(box)
    if isinstance(ty, TDate):
        lo_d = box.lo if isinstance(box.lo, date) else date.min
        hi_d = box.hi if isinstance(box.hi, date) else date.max
        if lo_d > hi_d:
            return st.nothing(), True
        return st.dates(min_value=lo_d, max_value=hi_d), True
    if isinstance(ty, TEnum):
        return st.sampled_from([EnumValue(ty.name, m) for m in ty.members]), True
    if isinstance(ty, TList):
        elem, elem_full = value_strategy(ty.elem, box.elem)
        if box.len_hi is not None and box.len_lo > box.len_hi:
            return st.nothing(), True
        if box.len_lo > 0 and elem.is_empty:
            return st.nothing(), True
        lists = st.lists(elem, min_size=box.len_lo, max_size=box.len_hi).map(tuple)
        return lists, elem_full
    return _compound_strategy(ty)


def _compound_strategy(ty: Ty) -> tuple[st.SearchStrategy[Any], bool]:
    """Tuples, optionals and dicts, from the strategies of their parts (no box reaches
    inside them: constraints on their parts are checked by the filter)."""
    if isinstance(ty, TTuple):
        parts = [value_strategy(t)[0] for t in ty.items]
        return st.tuples(*parts).map(TupleValue), False
    if isinstance(ty, TOptional):
        inner = value_strategy(ty.elem)[0]
        return st.one_of(st.none(), inner), False
    if isinstance(ty, TDict):
        keys, vals = value_strategy(ty.key)[0], value_strategy(ty.value)[0]
        dicts = st.dictionaries(keys, vals, max_size=8).map(lambda d: DictValue.of(d.items()))
        return dicts, False
    return st.nothing(), False


def _reals(box: Box) -> tuple[st.SearchStrategy[Any], bool]:
    lo = -REAL_LIMIT if box.lo is None else float(box.lo)
    hi = REAL_LIMIT if box.hi is None else float(box.hi)
    if box.lo is not None and box.hi is None:
        hi = max(lo, 0.0) + 2 * REAL_LIMIT
    if box.hi is not None and box.lo is None:
        lo = min(hi, 0.0) - 2 * REAL_LIMIT
    if lo > hi or (lo == hi and (box.lo_open or box.hi_open)):
        return st.nothing(), True
    strategy = st.floats(
        min_value=lo,
        max_value=hi,
        exclude_min=box.lo_open,
        exclude_max=box.hi_open,
        allow_nan=False,
        allow_infinity=False,
    )
    # float() may round a bound outwards: the final validity test catches that.
    return strategy, True


def _strings(box: Box) -> tuple[st.SearchStrategy[Any], bool]:
    if box.len_hi is not None and box.len_lo > box.len_hi:
        return st.nothing(), True
    if box.patterns:
        bounded = box.len_lo > 0 or box.len_hi is not None
        regex = _regex.to_python(box.patterns[0])
        full = len(box.patterns) == 1 and not bounded
        if bounded and len(box.patterns) == 1:
            folded = fold_length(box.patterns[0], box.len_lo, box.len_hi)
            if folded is not None:
                regex, full = folded, True
        strategy: st.SearchStrategy[str] = st.from_regex(regex, fullmatch=True)
        return strategy, full
    anything = st.text(min_size=box.len_lo, max_size=box.len_hi)
    members = [_members(r, box.len_lo, box.len_hi) for r in box.members]
    if not box.alphabet:
        return st.one_of(anything, *members) if members else anything, True
    # Whole strings from either alphabet: a per-character mix would be five times
    # slower to draw (Hypothesis's fast path needs a fixed alphabet).
    spec = st.text(alphabet=box.alphabet, min_size=box.len_lo, max_size=box.len_hi)
    return st.one_of(anything, spec, *members), True


def _members(pattern: str, lo: int, hi: int | None) -> st.SearchStrategy[str]:
    """Random members of a regex the spec tests a string against, within the length
    bounds: a condition ``matches(name, "[Aa][Dd][Mm][Ii][Nn]")`` is then met by many of its
    members (``aDmIn``), not only by the one the solver chose to hit it."""
    members = st.from_regex(_regex.to_python(pattern), fullmatch=True)
    if lo > 0 or hi is not None:
        members = members.filter(lambda t: lo <= len(t) and (hi is None or len(t) <= hi))
    return members


def spec_regexes(exprs: Sequence[Expr]) -> tuple[str, ...]:
    """The regexes of ``matches(_, "RE")`` in ``exprs`` that the language reads (at most
    eight, in order of appearance), for ``Box.members``."""
    from derivative._ast import StrLit
    from derivative._walk import walk

    found: dict[str, None] = {}
    for e in exprs:
        for n in walk(e):
            if isinstance(n, Call) and n.func == "matches" and len(n.args) == 2 \
                    and isinstance(n.args[1], StrLit) and n.args[1].value:
                try:
                    _regex.parse(n.args[1].value)
                except Exception:
                    continue
                found[n.args[1].value] = None
    return tuple(found)[:8]


QUIRKS: Final = " +-_\t\n0a\u0663"
"""Characters where Python's string functions differ from the language's (``int(" 5")``,
``int("+5")``, ``int("1_0")``, ``int("\u0663")`` are numbers to Python; ``.`` does not
match a newline) and two plain ones."""


def spec_alphabet(exprs: Sequence[Expr]) -> str:
    """The characters a spec talks about: those of its string literals and of its
    regexes (each class's first and last character and their neighbours), and
    ``QUIRKS``.  Half of the string inputs are drawn over these characters, so that
    ``matches(s, "[0-9]+")``, ``startswith(s, "ab")`` or ``int(s)`` meet inputs on both
    sides of their edges instead of mostly random code points."""
    from derivative._ast import Call, StrLit
    from derivative._walk import walk

    chars: dict[str, None] = dict.fromkeys(QUIRKS)
    content = False
    for e in exprs:
        for n in walk(e):
            if isinstance(n, StrLit) and n.value:
                content = True
                for ch in n.value[:64]:
                    chars[ch] = None
                _regex_chars(n.value, chars)
            elif isinstance(n, Call) and n.func in _CONTENT_CALLS:
                content = True
    # A spec that only measures strings (len) gains nothing from a second alphabet.
    return "".join(chars) if content else ""


_CONTENT_CALLS: Final = frozenset({"matches", "int", "startswith", "endswith", "contains"})


def _regex_chars(text: str, chars: dict[str, None]) -> None:
    """Edge characters of ``text`` read as a spec regex (nothing if it is not one)."""
    try:
        node = _regex.parse(text)
    except Exception:
        return
    stack: list[Any] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, _regex.RClass):
            for lo, hi in n.ranges[:8]:
                for c in (lo - 1, lo, hi, hi + 1):
                    if 0 <= c <= 0x2FFFF and not 0xD800 <= c <= 0xDFFF:
                        chars[chr(c)] = None
        elif isinstance(n, _regex.RChar):
            chars[n.char] = None
        for attr in ("items", "options"):
            stack.extend(getattr(n, attr, ()))
        inner = getattr(n, "node", None)
        if inner is not None:
            stack.append(inner)


def apply_alphabet(boxes: Mapping[str, Box], params: Mapping[str, Ty], alphabet: str,
                   regexes: tuple[str, ...] = ()) -> None:
    """Give every string parameter (and list-of-string element) the spec's alphabet and
    the regexes whose members some of its draws are."""
    for n, ty in params.items():
        box: Box | None = boxes.get(n)
        while box is not None:
            if isinstance(ty, TStr):
                box.alphabet = alphabet
                box.members = regexes
                break
            if isinstance(ty, TList):
                if box.elem is None:
                    box.elem = Box()
                box, ty = box.elem, ty.elem
                continue
            break


def fold_length(pattern: str, lo: int, hi: int | None) -> str | None:
    """``[a-z]+`` with ``len <= 6`` as ``[a-z]{1,6}``: a repeat of one character class.

    Only a pattern that is one repeated single-character atom can take a length bound
    this way; anything else keeps the bound as a filter (and the solver repairs it).
    """
    try:
        node = _regex.parse(pattern)
    except _regex.RegexError:
        return None
    atoms = (_regex.RChar, _regex.RClass, _regex.RAny)
    if isinstance(node, atoms):
        node = _regex.RRepeat(node, 1, 1)
    if not isinstance(node, _regex.RRepeat) or not isinstance(node.node, atoms):
        return None
    new_lo = max(node.min, lo)
    new_hi = hi if node.max is None else (node.max if hi is None else min(node.max, hi))
    if new_hi is not None and new_lo > new_hi:
        return None
    return _regex.node_to_python(_regex.RRepeat(node.node, new_lo, new_hi))


# --------------------------------------------------------------------------- inputs


@dataclass
class GenStats:
    """How the inputs were obtained (reported in the evidence)."""

    drawn_valid: int = 0
    repaired: int = 0
    from_pool: int = 0
    rejected: int = 0


class InputGen:
    """Valid inputs of one owner: a bounded seed, then the solver where needed.

    ``params``: the owner's parameters and types; ``fixed``: names whose values come
    from elsewhere (``from op`` parameters drawn from earlier results); ``near`` and
    ``pool``: the solver's generator (``_boundary.Space``), or None where the
    precondition could not be encoded.
    """

    def __init__(
        self,
        params: Mapping[str, Ty],
        requires: Sequence[Expr],
        evaluator: Evaluator,
        admits: Admits,
        *,
        fixed: frozenset[str] = frozenset(),
        near: Near | None = None,
        pool: Sequence[Mapping[str, object]] = (),
        alphabet: str = "",
        regexes: tuple[str, ...] = (),
    ) -> None:
        self.params = dict(params)
        self.admits = admits
        self.fixed = fixed
        self.near = near
        self.pool = [dict(p) for p in pool]
        self.requires = list(requires)
        self.evaluator = evaluator
        self.alphabet, self.regexes = alphabet, regexes
        self._region_seeds: dict[str, st.SearchStrategy[dict[str, Any]] | None] = {}
        self.boxes, self.residual = analyse(self.params, requires, evaluator)
        apply_alphabet(self.boxes, self.params, alphabet, regexes)
        parts: dict[str, st.SearchStrategy[Any]] = {}
        self.partial = False
        for n, ty in self.params.items():
            if n in fixed:
                continue
            strategy, full = value_strategy(ty, self.boxes[n])
            parts[n] = strategy
            self.partial = self.partial or not full
        self.empty = any(s.is_empty for s in parts.values())
        self.seeds: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(parts)
        self.uses_solver = bool(self.residual or self.partial or fixed) and near is not None
        self.stats = GenStats()

    def complete(
        self,
        draw: Callable[[st.SearchStrategy[Any]], Any],
        fixed: Mapping[str, object],
        region: Region | None = None,
    ) -> dict[str, object] | None:
        """A valid input (``fixed`` values kept), or None if none was found.

        With a ``region``, the input should also satisfy ``region.accepts``; the seed
        is repaired into the region by ``region.near``.  If that fails the input is
        still valid, only outside the region (never a rejection for the region's sake).
        """
        seeds = self._seeds_for(region) if region is not None and not fixed else None
        seed: dict[str, object] = dict(draw(seeds if seeds is not None else self.seeds))
        seed.update(fixed)
        accepts = region.accepts if region is not None else None
        if self.admits(seed) and (accepts is None or accepts(seed)):
            self.stats.drawn_valid += 1
            return seed
        near = region.near if region is not None else self.near
        if near is not None:
            repaired = near(seed, frozenset(fixed))
            if repaired is not None and self.admits(repaired):
                self.stats.repaired += 1
                return repaired
        if region is not None and self.admits(seed):
            self.stats.drawn_valid += 1
            return seed
        if region is not None and self.near is not None:
            repaired = self.near(seed, frozenset(fixed))
            if repaired is not None and self.admits(repaired):
                self.stats.repaired += 1
                return repaired
        if not fixed and self.pool:
            choice = self.pool[draw(st.integers(0, len(self.pool) - 1))]
            if self.admits(choice):
                self.stats.from_pool += 1
                return dict(choice)
        self.stats.rejected += 1
        return None

    def _seeds_for(self, region: Region) -> st.SearchStrategy[dict[str, Any]] | None:
        """Seeds drawn inside a region's boxes: the requires and the region's own
        conditions (``not`` each raises condition) analysed together, with the bounds
        parameters give each other; None when the region adds nothing to the boxes."""
        if region.name not in self._region_seeds:
            extra = [c for e in region.conditions for c in negated_conjuncts(e)]
            if not extra:
                self._region_seeds[region.name] = None
                return None
            boxes, residual = analyse(self.params, [*self.requires, *extra], self.evaluator)
            derive_bounds(boxes, self.params, residual)
            apply_alphabet(boxes, self.params, self.alphabet, self.regexes)
            parts = {n: value_strategy(ty, boxes[n])[0] for n, ty in self.params.items()
                     if n not in self.fixed}
            empty = any(p.is_empty for p in parts.values())
            self._region_seeds[region.name] = None if empty else st.fixed_dictionaries(parts)
        return self._region_seeds[region.name]

    def acceptance(self, samples: int = 40) -> float:
        """The share of bounded seeds that are valid inputs (a quick estimate, by a
        derandomised Hypothesis run of ``samples`` draws)."""
        from hypothesis import HealthCheck, given, settings

        seen = [0, 0]

        @settings(max_examples=samples, derandomize=True, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck), phases=_GENERATE)
        @given(self.seeds)
        def sample(seed: dict[str, object]) -> None:
            seen[0] += 1
            seen[1] += 1 if self.admits(seed) else 0

        if self.empty:
            return 0.0
        sample()
        return seen[1] / seen[0] if seen[0] else 0.0

    def strategy(self, regions: Sequence[Region] = ()) -> st.SearchStrategy[dict[str, object]]:
        """Valid complete inputs (no fixed parameters); never rejects while a model exists.

        ``regions``: parts of the input space worth aiming at (the engine passes "no
        raises condition holds", so that the ``ensures`` are judged on many inputs even
        where most inputs raise); each gets an equal share of the draws.
        """
        if self.empty:
            if self.pool and self.near is not None:
                return st.sampled_from(self.pool).map(dict)
            return st.nothing()

        def build(region: Region | None) -> st.SearchStrategy[dict[str, object]]:
            @st.composite
            def inputs(draw: st.DrawFn) -> dict[str, object]:
                value = self.complete(draw, {}, region)
                if value is None:
                    reject()
                assert value is not None
                return value

            return inputs()

        if not regions:
            return build(None)
        return st.one_of(build(None), *(build(r) for r in regions))


@dataclass(frozen=True)
class Region:
    """A part of the valid inputs: a test (the evaluator's) and a repair (the solver's)."""

    name: str
    accepts: Admits
    near: Near | None
    conditions: tuple[Expr, ...] = ()
    """Conditions that must be false in the region (its raises conditions): seeds are
    drawn inside the bounds their negations give (``InputGen._seeds_for``)."""
