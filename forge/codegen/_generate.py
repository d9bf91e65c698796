"""A standalone pytest module from a contract: ``derivative tests SPEC --target T -o FILE``.

The written module is meant to be read, kept and run without ``derivative``: it imports
only the standard library, pytest and Hypothesis.  It has

- one test per obligation, named after its identifier (``test_S1``,
  ``test_parse_minutes__raises__ValueError``), with the obligation's text, file and
  line in its docstring;
- the solver-chosen inputs (boundaries, ``raises`` triggers, antecedents, examples) as
  ``@example`` decorators, each commented with the trigger it hits;
- every obligation compiled to a Python function: a *fourth reading* of the AST
  (ARCHITECTURE.md §2), held to the evaluator by ``tests/property/
  test_codegen_differential.py``;
- a small inlined runtime (``RUNTIME`` below) for what Python does differently:
  undefinedness is the exception ``Undefined`` (so Python's own left-to-right,
  short-circuit evaluation gives exactly the language's rules), floor division and
  modulo of reals, the float slack of comparisons, ``int(s)`` only on digit strings,
  date arithmetic inside the calendar, and the checks of a result's type;
- stateful tests for systems (a ``RuleBasedStateMachine`` per system; count
  invariants checked after every call and at the end).  Concurrent interleavings are
  explored by ``derivative tests`` itself and the pytest plugin, not by the written
  module (the explorer is part of derivative).

How the compiled Python reads values: ``int``/``bool``/``str`` as themselves, reals as
``Fraction`` (literals) or ``float`` (inputs, results), dates as ``datetime.date``,
lists as tuples, enum values as their member names (``"ok"``).
"""

from __future__ import annotations

import keyword
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Any

from derivative import _regex
from derivative._ast import (
    BindDecl,
    BinOp,
    BoolLit,
    BoolOp,
    Call,
    Compare,
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
    SystemDecl,
    Unary,
)
from derivative._canon import contract_identity
from derivative._errors import InternalError
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
from derivative._types import join_base as _join
from derivative._values import EnumValue
from derivative._walk import ExprVisitor

from ..testing import EngineOptions

__all__ = ["RUNTIME", "CompileError", "PyCompiler", "generate_module", "py_value", "runtime"]


class CompileError(InternalError):
    """An expression the Python reading cannot express (a bug: the checker rules it out)."""


# --------------------------------------------------------------------------- the runtime

RUNTIME = r'''
class Undefined(Exception):
    """An expression of the contract is undefined here (LANGUAGE.md section 4)."""


class WrongType(Exception):
    """A result is not a value of the declared type."""


REL_TOL = 1e-9
ABS_TOL = 1e-12
_DATE_MIN = datetime.date.min.toordinal()
_DATE_MAX = datetime.date.max.toordinal()


def _fin(x):
    if isinstance(x, float) and not math.isfinite(x):
        raise Undefined("float overflow")
    return x


def _div(a, b):
    if b == 0:
        raise Undefined("division by zero")
    if isinstance(a, float) or isinstance(b, float):
        return _fin(a / b)
    return Fraction(a) / Fraction(b)


def _floordiv(a, b):
    if b == 0:
        raise Undefined("division by zero")
    if type(a) is int and type(b) is int:
        return a // b
    if isinstance(a, float) or isinstance(b, float):
        return _fin(a // b)
    return Fraction(a // b)


def _mod(a, b):
    if b == 0:
        raise Undefined("modulo by zero")
    if type(a) is int and type(b) is int:
        return a % b
    if isinstance(a, float) or isinstance(b, float):
        return _fin(a % b)
    return Fraction(a % b)


def _close(a, b):
    try:
        return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)
    except OverflowError:
        fa, fb = Fraction(a), Fraction(b)
        return abs(fa - fb) <= max(Fraction(REL_TOL) * max(abs(fa), abs(fb)), Fraction(ABS_TOL))


def _eq(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return _close(a, b)
    return a == b


def _lt(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):
        for x, y in zip(a, b):
            if not _eq(x, y):
                return _lt(x, y)
        return len(a) < len(b)
    if isinstance(a, float) or isinstance(b, float):
        return a < b and not _close(a, b)
    return a < b


def _le(a, b):
    return _lt(a, b) or _eq(a, b)


def _in_range(x, lo, hi):
    return lo <= x <= hi


def _member(x, xs):
    return any(_eq(x, y) for y in xs)


def _occurrences(xs, x):
    return sum(1 for y in xs if _eq(x, y))


def _index(xs, i):
    if 0 <= i < len(xs):
        return xs[i]
    raise Undefined("index out of range")


def _int(s):
    if s.isascii() and s.isdigit():
        return int(s) if len(s) <= 4000 else int(decimal.Decimal(s))
    raise Undefined("int() of a string that is not digits")


def _str(n):
    return str(n) if n.bit_length() < 12000 else str(decimal.Decimal(n))


def _date_add(d, n):
    o = d.toordinal() + n
    if _DATE_MIN <= o <= _DATE_MAX:
        return datetime.date.fromordinal(o)
    raise Undefined("date out of range")


def _date_diff(a, b):
    return a.toordinal() - b.toordinal()


def _date_arith(a, op, b):
    if op == "-" and isinstance(b, datetime.date):
        return _date_diff(a, b)
    if op == "-":
        return _date_add(a, -b)
    return _date_add(a, b) if isinstance(a, datetime.date) else _date_add(b, a)


def _min(*args):
    items = args[0] if len(args) == 1 else args
    if not items:
        raise Undefined("min() of an empty list")
    return min(items)


def _max(*args):
    items = args[0] if len(args) == 1 else args
    if not items:
        raise Undefined("max() of an empty list")
    return max(items)


def _sum(xs):
    acc = 0
    for x in xs:
        acc = _fin(acc + x)
    return acc


_PATTERNS = {}


def _matches(s, pattern):
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        compiled = _PATTERNS[pattern] = re.compile(pattern)
    return compiled.fullmatch(s) is not None


def _holds(condition, *args):
    """A precondition: true only if defined and true."""
    try:
        return condition(*args) is True
    except Undefined:
        return False


def _conform(value, ty):
    """``value`` in the tests' representation if it is a value of type ``ty``."""
    kind = ty[0]
    if kind == "int":
        if type(value) is bool or not isinstance(value, int):
            raise WrongType
        value = int(value)
        if (ty[1] is not None and value < ty[1]) or (ty[2] is not None and value > ty[2]):
            raise WrongType
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise WrongType
        return bool(value)
    if kind == "real":
        if type(value) is bool or not isinstance(value, (int, float, Fraction)):
            raise WrongType
        if isinstance(value, float) and not math.isfinite(value):
            raise WrongType
        return value
    if kind == "str":
        if not isinstance(value, str) or isinstance(value, enum.Enum):
            raise WrongType
        value = str.__str__(value)
        if ty[1] is not None and not _matches(value, ty[1]):
            raise WrongType
        return value
    if kind == "date":
        if not isinstance(value, datetime.date) or isinstance(value, datetime.datetime):
            raise WrongType
        return datetime.date(value.year, value.month, value.day)
    if kind == "list":
        if not isinstance(value, (list, tuple)):
            raise WrongType
        return tuple(_conform(v, ty[1]) for v in value)
    if kind == "enum":
        if isinstance(value, enum.Enum):
            if type(value).__name__ != ty[1] or value.name not in ty[2]:
                raise WrongType
            return value.name
        if isinstance(value, str) and str.__str__(value) in ty[2]:
            return str.__str__(value)
        raise WrongType
    if kind == "none":
        if value is not None:
            raise WrongType
        return None
    raise WrongType


def _show(value):
    if value is None:
        return "none"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, datetime.date):
        return f'date("{value.isoformat()}")'
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


# ----------------------------------------------------------------- reaching the target

def _load_target():
    target = os.environ.get("DERIVATIVE_TARGET", TARGET)
    if target.endswith(".py"):
        path = pathlib.Path(target)
        if not path.is_absolute():
            path = pathlib.Path(__file__).resolve().parent / path
        folder = str(path.parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        spec = importlib.util.spec_from_file_location("_derivative_target", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["_derivative_target"] = module
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(target)


_TARGET_MODULE = None


def _target():
    global _TARGET_MODULE
    if _TARGET_MODULE is None:
        _TARGET_MODULE = _load_target()
    return _TARGET_MODULE


def _resolve(name):
    where = BINDS.get(name)
    if where is not None:
        module_name, _, attr = where.partition(":")
        obj = importlib.import_module(module_name) if module_name else _target()
        for part in (attr or name).split("."):
            obj = getattr(obj, part)
        return obj
    return getattr(_target(), name)


def _arg(value, ty):
    """A test value as the implementation takes it: lists as lists, enum values as the
    target's own Enum members where it defines that Enum (else the member name)."""
    kind = ty[0]
    if kind == "list":
        return [_arg(v, ty[1]) for v in value]
    if kind == "enum":
        cls = getattr(_target(), ty[1], None)
        if isinstance(cls, type) and issubclass(cls, enum.Enum) and value in cls.__members__:
            return cls[value]
        return value
    if isinstance(value, Fraction):
        return float(value)
    return value


class Returned:
    def __init__(self, value):
        self.value = value

    def __str__(self):
        return f"returned {_show(self.value)}"


class Raised:
    def __init__(self, exc):
        self.names = tuple(c.__name__ for c in type(exc).__mro__)
        self.message = str(exc)[:500]

    def __str__(self):
        return f"raised {self.names[0]}" + (f"({self.message!r})" if self.message else "")


def _invoke(fn, args):
    try:
        return Returned(fn(*args))
    except Exception as exc:
        return Raised(exc)


# ----------------------------------------------------------------- judging one call

class Clause:
    """One obligation of an owner: how to check it and how to name it in a failure."""

    def __init__(self, id, kind, header, check, exception=None, reads_result=False, source=""):
        self.id = id
        self.kind = kind
        self.header = header
        self.check = check
        self.exception = exception
        self.reads_result = reads_result
        self.source = source


class Owner:
    """A function or an operation: its parameters, result type and clauses."""

    def __init__(self, name, params, returns, valid, clauses, synthetic=None):
        self.name = name
        self.params = params
        self.returns = returns
        self.valid = valid
        self.raises = [c for c in clauses if c.kind == "raises"]
        self.ensures = [c for c in clauses if c.kind == "ensures"]
        self.synthetic = synthetic
        self.ids = [c.id for c in clauses] + ([synthetic.id] if synthetic else [])

    def args(self, inp):
        return [_arg(inp[name], ty) for name, ty in self.params]

    def values(self, inp):
        return [inp[name] for name, _ in self.params]

    def call_text(self, inp):
        return self.name + "(" + ", ".join(f"{n}={_show(inp[n])}" for n, _ in self.params) + ")"


def _failure(clause, owner, inp, outcome, required):
    return (
        f"{clause.header} failed\n"
        f"  input:    {owner.call_text(inp)}\n"
        f"  got:      {outcome}\n"
        f"  required: {required}"
    )


def judge(owner, inp, outcome):
    """Failures of every clause of ``owner`` at the valid input ``inp``: id -> message.
    Also returns the conforming result (or None)."""
    failures = {}
    holding = []
    values = owner.values(inp)
    for c in owner.raises:
        try:
            cond = c.check(*values)
        except Undefined:
            failures[c.id] = _failure(c, owner, inp, outcome,
                                      f"the condition of raises {c.exception} is undefined here")
            continue
        if cond:
            holding.append(c)
    if holding:
        wanted = [c.exception for c in holding]
        if isinstance(outcome, Raised) and any(w in outcome.names for w in wanted):
            return failures, None
        need = " or ".join(dict.fromkeys(wanted))
        for c in holding:
            failures[c.id] = _failure(c, owner, inp, outcome,
                                      f"raise {need} (or a subclass): its condition holds")
        return failures, None
    if isinstance(outcome, Raised):
        targets = owner.ensures + owner.raises + ([owner.synthetic] if owner.synthetic else [])
        for c in targets:
            failures[c.id] = _failure(c, owner, inp, outcome,
                                      "a normal return: no raises condition holds here")
        return failures, None
    try:
        result = _conform(outcome.value, owner.returns)
        typed = True
    except WrongType:
        result, typed = None, False
    if owner.synthetic is not None and not typed:
        failures[owner.synthetic.id] = _failure(owner.synthetic, owner, inp, outcome,
                                                f"a result of type {owner.returns}")
    for c in owner.ensures:
        if c.reads_result and not typed:
            failures[c.id] = _failure(c, owner, inp, outcome,
                                      f"a result of type {owner.returns}")
            continue
        try:
            ok = c.check(*values, result) if c.reads_result else c.check(*values)
        except Undefined:
            ok = None
        if ok is not True:
            why = "undefined" if ok is None else "false"
            failures[c.id] = _failure(c, owner, inp, outcome, f"{c.source} (it is {why} here)")
    return failures, result


def check_function(owner, inp, focus):
    """The test of one obligation of a function at one input."""
    if not owner.valid(*owner.values(inp)):
        reject()
    outcome = _invoke(_resolve(owner.name), owner.args(inp))
    failures, _ = judge(owner, inp, outcome)
    if focus in failures:
        raise AssertionError(failures[focus])


def check_example(owner, inp, expected, exception, header, system=None):
    """An ``example``: the call returns ``expected`` (or raises ``exception``)."""
    if system is None:
        fn = _resolve(owner.name)
    else:
        fn = getattr(_resolve(system)(), owner.name)
    outcome = _invoke(fn, owner.args(inp))
    call = owner.call_text(inp)
    if exception is not None:
        if isinstance(outcome, Raised) and exception in outcome.names:
            return
        raise AssertionError(f"{header} failed\n  input:    {call}\n  got:      {outcome}\n"
                             f"  required: raise {exception}")
    try:
        if isinstance(outcome, Returned) and _eq(_conform(outcome.value, owner.returns),
                                                 expected):
            return
    except WrongType:
        pass
    raise AssertionError(f"{header} failed\n  input:    {call}\n  got:      {outcome}\n"
                         f"  required: return {_show(expected)}")


# ----------------------------------------------------------------- systems

class Count:
    """One ``count(OP where P, per X) CMP N`` of an invariant."""

    def __init__(self, invariant, header, op, where, per, cmp, bound, text):
        self.invariant = invariant
        self.header = header
        self.op = op
        self.where = where
        self.per = per
        self.upper = cmp in ("<=", "<", "==")
        self.limit = bound - 1 if cmp == "<" else bound + 1 if cmp == ">" else bound
        self.text = text

    def holds(self, n):
        return n <= self.limit if self.upper else n >= self.limit


class SystemRun:
    """One instance's life in a state machine: calls, judgements and counts."""

    def __init__(self, system, ops, counts, focus):
        self.system = system
        self.ops = ops
        self.counts = counts
        self.focus = focus
        self.instance = _resolve(system)()
        self.trace = [f"{system}() -> s"]
        self.tally = [{} for _ in counts]
        self.keys = [set() for _ in counts]

    def _fail(self, header, got, required):
        calls = "\n            ".join(self.trace)
        raise AssertionError(f"{header} failed\n  calls:    {calls}\n  got:      {got}\n"
                             f"  required: {required}")

    def call(self, op, inp):
        owner = self.ops[op]
        outcome = _invoke(getattr(self.instance, op), owner.args(inp))
        self.trace.append(f"s.{owner.call_text(inp)} -> {outcome}")
        failures, result = judge(owner, inp, outcome)
        if self.focus in failures:
            raise AssertionError(failures[self.focus] + "\n  calls:    "
                                 + "\n            ".join(self.trace))
        if not isinstance(outcome, Returned):
            return None
        for i, c in enumerate(self.counts):
            if c.op != op:
                continue
            try:
                result = _conform(outcome.value, owner.returns)
            except WrongType:
                result = None
            key = inp[c.per] if c.per else None
            self.keys[i].add(key)
            try:
                hit = True if c.where is None else c.where(*owner.values(inp), result)
            except Undefined:
                hit = None
            if hit is None and c.invariant == self.focus:
                self._fail(c.header, "the count predicate is undefined for this call", c.text)
            if hit:
                self.tally[i][key] = self.tally[i].get(key, 0) + 1
                n = self.tally[i][key]
                if c.upper and not c.holds(n) and c.invariant == self.focus:
                    self._fail(c.header, f"the count reached {n}", c.text)
        try:
            return _conform(outcome.value, owner.returns)
        except WrongType:
            return None

    def finish(self):
        for i, c in enumerate(self.counts):
            if c.upper or c.invariant != self.focus:
                continue
            keys = self.keys[i] or ({None} if c.per is None else set())
            for key in keys:
                n = self.tally[i].get(key, 0)
                if not c.holds(n):
                    self._fail(c.header, f"the count ended at {n}", c.text)


def explicit_runs(system, ops, counts, focus, items):
    """The solver-chosen inputs of each operation, each on a fresh instance; a ``from``
    parameter gets a value returned by its source operation first."""
    for op, inp, sources in items:
        run = SystemRun(system, ops, counts, focus)
        inp = dict(inp)
        for name, (source_op, source_inp) in sources.items():
            value = run.call(source_op, source_inp)
            if value is None:
                break
            inp[name] = value
        else:
            if ops[op].valid(*ops[op].values(inp)):
                run.call(op, inp)
                run.finish()
'''


def runtime() -> dict[str, Any]:
    """The runtime's namespace (for the differential test and the throughput benchmark)."""
    import datetime
    import decimal
    import enum
    import importlib
    import importlib.util
    import math
    import pathlib
    import sys

    from hypothesis import reject

    ns: dict[str, Any] = {
        "datetime": datetime, "decimal": decimal, "enum": enum, "importlib": importlib,
        "math": math, "os": os, "pathlib": pathlib, "re": re, "sys": sys,
        "Fraction": Fraction, "reject": reject, "TARGET": "", "BINDS": {},
    }
    exec(compile(RUNTIME, "<derivative runtime>", "exec"), ns)
    return ns


# --------------------------------------------------------------------------- values


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
    return "('any',)"


# --------------------------------------------------------------------------- expressions

_RESERVED = frozenset(
    {
        "len", "abs", "min", "max", "sum", "int", "str", "all", "any", "range", "sorted",
        "tuple", "datetime", "decimal", "Fraction", "math", "re", "enum", "result", "self",
        "st", "settings", "given", "example", "reject", "pytest", "os", "sys", "pathlib",
        "importlib", "inp", "data", "True", "False", "None", "bool", "float", "isinstance",
        "type", "zip",
    }
)  # fmt: skip


def pyname(name: str) -> str:
    """A spec identifier as a Python identifier (keywords and clashes get a ``_``)."""
    if keyword.iskeyword(name) or name in _RESERVED or name.startswith("_"):
        return name + "_"
    return name


def _is_real(t: Ty) -> bool:
    if isinstance(t, TReal):
        return True
    if isinstance(t, TList):
        return _is_real(t.elem)
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
        a, ta = self.visit(n.left)
        b, tb = self.visit(n.right)
        op = n.op
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
        a, _ = self.visit(n.left)
        b, _ = self.visit(n.right)
        if n.op == "and":
            return f"({a} and {b})", BOOL
        if n.op == "or":
            return f"({a} or {b})", BOOL
        if n.op == "implies":
            return f"((not {a}) or {b})", BOOL
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
        ty = tb.elem if isinstance(tb, TList) else STR
        return f"_index({b}, {i})", ty

    def visit_count(self, n: Count) -> tuple[str, Ty]:
        raise CompileError("count(...) is compiled with its invariant")

    def visit_call(self, n: Call) -> tuple[str, Ty]:
        args = [self.visit(a) for a in n.args]
        f = n.func
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
        raise CompileError(f"unknown function {f!r}")


# --------------------------------------------------------------------------- module writer


def test_name(obligation_id: str) -> str:
    """``test_`` + the id with ``.`` as ``__`` and other non-identifier characters ``_``."""
    text = obligation_id.replace(".", "__")
    return "test_" + re.sub(r"[^0-9A-Za-z_]", "_", text)


def _ident(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]", "_", text)


def _header(o: Obligation | Any) -> str:
    head = o.id
    if getattr(o, "text", None):
        head += f' "{o.text}"'
    return f"{head} ({o.file}:{o.line})"


@dataclass
class _Owner:
    """What the writer needs about one function or operation."""

    qualname: str
    func: str
    system: str | None
    params: list[tuple[str, Ty, str | None]]
    returns: Ty


def _lines(text: str, indent: int = 0) -> list[str]:
    pad = " " * indent
    return [pad + line if line else "" for line in text.splitlines()]


class _Writer:
    """Writes the module; see ``generate_module``."""

    def __init__(self, info: TypeInfo, engine: Any, target: str, examples: int,
                 steps: int) -> None:
        self.info = info
        self.engine = engine
        self.target = target
        self.examples = examples
        self.steps = steps
        self.out: list[str] = []
        self.used_tests: set[str] = set()

    # ------------------------------------------------------------------ helpers

    def emit(self, *lines: str) -> None:
        self.out.extend(lines)

    def test_fn(self, oid: str) -> str:
        name = test_name(oid)
        while name in self.used_tests:
            name += "_"
        self.used_tests.add(name)
        return name

    def scope(self, owner: _Owner) -> dict[str, Ty]:
        names: dict[str, Ty] = dict(self.info.const_types)
        names.update({n: t for n, t, _ in owner.params})
        return names

    def compiler(self, scope: Mapping[str, Ty]) -> PyCompiler:
        return PyCompiler(scope, self.info.enums)

    # ------------------------------------------------------------------ the module

    def write(self) -> str:
        c = self.info.contract
        identity = contract_identity(c)
        files = ", ".join(f.path for f in c.files) or "?"
        has_systems = bool(c.systems())
        self.emit(
            f'"""Tests of {c.name} version {c.version} generated by derivative.',
            "",
            f"Requirement set: {files} (sha256 {identity}).",
            f"Target: {self.target} (override with the environment variable DERIVATIVE_TARGET).",
            "One test per obligation, named after its identifier; the solver-chosen inputs",
            "(boundaries, raises triggers, antecedents, examples) are @example decorators.",
            "Runs with pytest and hypothesis only.  Preconditions (requires) are not tests:",
            "they decide which inputs are valid.  Concurrent interleavings of count",
            "invariants are explored by `derivative tests` and the pytest plugin, not here.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "import datetime",
            "import decimal",
            "import enum",
            "import importlib",
            "import importlib.util",
            "import math",
            "import os",
            "import pathlib",
            "import re",
            "import sys",
            "from fractions import Fraction",
            "",
            "from hypothesis import HealthCheck, Phase, assume, example, given, reject, settings",
            "from hypothesis import strategies as st",
        )
        if has_systems:
            self.emit(
                "from hypothesis.stateful import (",
                "    Bundle,",
                "    RuleBasedStateMachine,",
                "    multiple,",
                "    rule,",
                "    run_state_machine_as_test,",
                ")",
            )
        binds = {d.name: d.target for d in c.declarations if isinstance(d, BindDecl)}
        tol = float(c.tolerance) if c.tolerance else 1e-9
        self.emit(
            "",
            f"TARGET = {self.target!r}",
            f"BINDS = {binds!r}",
            f"EXAMPLES = int(os.environ.get('DERIVATIVE_EXAMPLES', {self.examples}))",
            "SETTINGS = settings(",
            "    max_examples=EXAMPLES,",
            "    deadline=None,",
            "    suppress_health_check=[HealthCheck.too_slow],",
            "    # Failures are reported in the obligation's words; Hypothesis's explain",
            "    # phase would re-run each one hundreds of times to annotate it.",
            "    phases=[p for p in Phase if p is not Phase.explain],",
            ")",
            "",
            _RULE + " runtime",
            "# Undefinedness, floor semantics, float slack and result types (LANGUAGE.md).",
        )
        self.emit(*RUNTIME.strip("\n").splitlines())
        self.emit(f"REL_TOL = {tol!r}", "")
        if c.consts():
            self.emit("", _RULE + " constants", "")
            for const in c.consts():
                value = self.info.const_values[const.name]
                self.emit(f"{pyname(const.name)} = {py_value(value)}")
        for d in c.declarations:
            if isinstance(d, FunctionDecl):
                self.function(d)
            elif isinstance(d, SystemDecl):
                self.system(d)
        return "\n".join(self.out).rstrip() + "\n"

    # ------------------------------------------------------------------ owners

    def owner_block(self, owner: _Owner) -> str:
        """Compiled clauses, validity, the Owner table and the input strategy."""
        q = owner.qualname
        var = _ident(q).upper()
        obligations = self.info.contract.obligations_of(q)
        scope = self.scope(owner)
        comp = self.compiler(scope)
        params = [pyname(n) for n, _, _ in owner.params]
        sig = ", ".join(params)
        self.emit("", "", f"{_RULE} {q}", "")
        requires = [o for o in obligations if o.kind == "requires"]
        conds = [f"({comp.compile(o.expr)})" for o in requires]
        self.emit(f"def {_ident(q)}__valid({sig}):")
        self.emit(f'    """Whether the input is valid: its types, then every requires of {q}."""')
        for n, t, _ in owner.params:
            self.emit("    try:")
            self.emit(f"        _conform({pyname(n)}, {ty_source(t)})")
            self.emit("    except WrongType:")
            self.emit("        return False")
        for o, cond in zip(requires, conds, strict=True):
            self.emit(f"    # {_header(o)}: {to_source(o.expr)}")
            self.emit(f"    if not _holds(lambda: {cond}):")
            self.emit("        return False")
        self.emit("    return True", "")
        judge = self.engine.judge_of(q)
        clauses: list[str] = []
        for o in obligations:
            if o.kind not in ("ensures", "raises"):
                continue
            fn = f"{_ident(o.id)}__check"
            reads = o in judge.reading
            fscope = dict(scope)
            if reads:
                fscope["result"] = owner.returns
            body = self.compiler(fscope).compile(o.expr)
            args = sig + (", result" if reads else "") if sig else ("result" if reads else "")
            self.emit("", f"def {fn}({args}):")
            self.emit(f'    """{_header(o)}: {_doc(to_source(o.expr))}"""')
            self.emit(f"    return {body}")
            exc = f", exception={o.exception!r}" if o.kind == "raises" else ""
            rr = ", reads_result=True" if reads else ""
            src = f", source={to_source(o.expr)!r}"
            clauses.append(f"Clause({o.id!r}, {o.kind!r}, {_header(o)!r}, {fn}{exc}{rr}{src})")
        synthetic = "None"
        if judge.synthetic is not None:
            s = judge.synthetic
            header = f"{s.id} ({s.file}:{s.line})"
            synthetic = f"Clause({s.id!r}, 'returns', {header!r}, None)"
        self.emit(
            "",
            "",
            f"{var} = Owner(",
            f"    {owner.func!r},",
            "    [" + ", ".join(f"({n!r}, {ty_source(t)})" for n, t, _ in owner.params) + "],",
            f"    {ty_source(owner.returns)},",
            f"    {_ident(q)}__valid,",
            "    [",
            *[f"        {c}," for c in clauses],
            "    ],",
            f"    {synthetic},",
            ")",
        )
        self.strategy(owner, var)
        return var

    def strategy(self, owner: _Owner, var: str) -> None:
        """``INPUTS_<owner>``: bounded strategies, the full validity as a filter, and (where
        preconditions are narrow) the solver's valid inputs mixed in."""
        from ..testing import analyse, apply_alphabet, spec_alphabet

        q = owner.qualname
        judge = self.engine.judge_of(q)
        plan = self.engine.plan_of(q)
        params = {n: t for n, t, f in owner.params if f is None}
        boxes, residual = analyse(params, [o.expr for o in judge.requires],
                                  self.engine.evaluator)
        alphabet = spec_alphabet([o.expr for o in self.info.contract.obligations_of(q)])
        apply_alphabet(boxes, params, alphabet)
        parts = []
        partial = False
        for n, t in params.items():
            src, full = _strategy_source(t, boxes[n])
            partial = partial or not full
            parts.append(f"        {n!r}: {src},")
        froms = [n for n, _, f in owner.params if f is not None]
        valid = f"lambda inp: {var}.valid(*{var}.values(inp))" if not froms else None
        self.emit("", f"INPUTS_{var} = st.fixed_dictionaries(", "    {", *parts, "    }", ")")
        if valid is not None:
            known = [i for i in (*plan.inputs, *plan.pool) if judge.admits(i)]
            rate = 1.0
            if (residual or partial) and known:
                rate = self.engine._input_gen(q).acceptance()
            if rate < 0.2:
                self.emit(
                    f"# The preconditions of {q} are narrow (about {rate:.0%} of bounded draws",
                    "# are valid): the draws are valid inputs the solver found when the tests",
                    "# were written.",
                    f"KNOWN_{var} = [",
                    *[f"    {_input_source(i, params)}," for i in known],
                    "]",
                    f"INPUTS_{var} = st.sampled_from(KNOWN_{var})",
                )
            elif (residual or partial) and known:
                self.emit(
                    f"# The preconditions of {q} are narrow: half of the draws are valid inputs",
                    "# found by the solver when the tests were written.",
                    f"KNOWN_{var} = [",
                    *[f"    {_input_source(i, params)}," for i in known],
                    "]",
                    f"INPUTS_{var} = st.one_of(INPUTS_{var}.filter({valid}), "
                    f"st.sampled_from(KNOWN_{var}))",
                )
            else:
                self.emit(f"INPUTS_{var} = INPUTS_{var}.filter({valid})")

    def examples_of(self, q: str, params: Mapping[str, Ty]) -> list[str]:
        """``@example(...)`` lines: each solver input, commented with what it hits."""
        plan = self.engine.plan_of(q)
        judge = self.engine.judge_of(q)
        out: list[str] = []
        for inp, origin in zip(plan.inputs, plan.origins, strict=True):
            if not judge.admits(inp):
                continue
            hits = list(dict.fromkeys(
                t.description for t in plan.triggers
                if t.input is inp or (t.input is not None and t.input == inp)
            ))
            note = f"  # hits {'; '.join(hits)}" if hits else f"  # {origin or 'solver input'}"
            out.append(f"@example({_input_source(inp, params)}){_comment(note)}")
        return out

    def function(self, d: FunctionDecl) -> None:
        sig = self.info.signatures[d.name]
        owner = _Owner(d.name, d.name, None, list(sig.params), sig.returns)
        var = self.owner_block(owner)
        judge = self.engine.judge_of(d.name)
        params = {n: t for n, t, _ in sig.params}
        examples = self.examples_of(d.name, params)
        for o in self.info.contract.obligations_of(d.name):
            if o.kind in ("ensures", "raises"):
                self.property_test(o, var, examples)
            elif o.kind == "example":
                self.example_test(o, var, judge)
        if judge.synthetic is not None:
            self.property_test(judge.synthetic, var, examples)

    def property_test(self, o: Any, var: str, examples: Sequence[str]) -> None:
        name = self.test_fn(o.id)
        expr = getattr(o, "expr", None)
        text = to_source(expr) if expr is not None else "a normal return of the declared type"
        self.emit("", "", "@SETTINGS", f"@given(INPUTS_{var})", *examples)
        self.emit(f"def {name}(inp):")
        self.emit(f'    """{_header(o)}: {_doc(text)}"""')
        self.emit(f"    check_function({var}, inp, {o.id!r})")

    def example_test(self, o: Obligation, var: str, judge: Any, system: str | None = None) -> None:
        args, expected = judge.example_call(o)
        params = {n: t for n, t, _ in judge.signature.params}
        want = "None"
        if expected is not None:
            want = py_value(self.engine.evaluator.eval(expected))
        name = self.test_fn(o.id)
        self.emit("", "", f"def {name}():")
        self.emit(f'    """{_header(o)}: {_doc(to_source(o.expr))}"""')
        self.emit(
            f"    check_example({var}, {_input_source(args, params)}, {want}, "
            f"{o.exception!r}, {_header(o)!r}, {system!r})"
        )

    # ------------------------------------------------------------------ systems

    def system(self, d: SystemDecl) -> None:
        from ..testing import count_checks

        owners: dict[str, str] = {}
        for op in d.operations:
            sig = self.info.signatures[op.qualname]
            owner = _Owner(op.qualname, op.name, d.name, list(sig.params), sig.returns)
            owners[op.name] = self.owner_block(owner)
        invariants = [o for o in self.info.contract.obligations_of(d.name) if o.kind == "invariant"]
        counts: list[str] = []
        for o in invariants:
            checks = count_checks(o, self.engine.evaluator)
            if checks is None:
                continue
            for c in checks:
                where = "None"
                if c.count.where is not None:
                    sig = self.info.signatures[f"{d.name}.{c.count.op}"]
                    scope = dict(self.info.const_types)
                    scope.update({n: t for n, t, _ in sig.params})
                    if not isinstance(sig.returns, TNone):
                        scope["result"] = sig.returns
                    names = ", ".join([*(pyname(n) for n, _, _ in sig.params), "result"])
                    where = f"lambda {names}: {self.compiler(scope).compile(c.count.where)}"
                counts.append(
                    f"Count({o.id!r}, {_header(o)!r}, {c.count.op!r}, {where}, "
                    f"{c.count.per!r}, {c.cmp!r}, {c.bound!r}, {c.describe()!r})"
                )
        sources = sorted({p.from_op for op in d.operations for p in op.params if p.from_op})
        cls = f"{_ident(d.name)}Machine"
        explicit = self.explicit_items(d)
        self.emit(
            "", "",
            f"{_ident(d.name).upper()}_OPS = {{"
            + ", ".join(f"{n!r}: {v}" for n, v in owners.items())
            + "}",
            f"{_ident(d.name).upper()}_COUNTS = [",
            *[f"    {c}," for c in counts],
            "]",
            "# Solver-chosen inputs of the operations: (operation, input, from-parameters).",
            f"{_ident(d.name).upper()}_EXPLICIT = [",
            *[f"    {e}," for e in explicit],
            "]",
            "",
            "",
            f"class {cls}(RuleBasedStateMachine):",
            f'    """Random call sequences on fresh {d.name} instances; the obligation named',
            "    FOCUS fails the run (upper count bounds after every call, lower ones at the",
            '    end)."""',
            "",
            "    FOCUS = None",
        )
        for src in sources:
            self.emit(f"    {src}_results = Bundle({(src + '_results')!r})")
        self.emit(
            "",
            "    def __init__(self):",
            "        super().__init__()",
            f"        self.run = SystemRun({d.name!r}, {_ident(d.name).upper()}_OPS, "
            f"{_ident(d.name).upper()}_COUNTS, self.FOCUS)",
        )
        for op in d.operations:
            var = owners[op.name]
            froms = [(p.name, p.from_op) for p in op.params if p.from_op]
            target = f"target={op.name}_results, " if op.name in sources else ""
            fargs = "".join(f"{pyname(n)}={src}_results, " for n, src in froms)
            self.emit("", f"    @rule({target}{fargs}data=st.data())")
            params = ", ".join(["self", "data", *(pyname(n) for n, _ in froms)])
            self.emit(f"    def {pyname(op.name)}({params}):")
            self.emit(f"        inp = dict(data.draw(INPUTS_{var}))")
            for n, _ in froms:
                self.emit(f"        inp[{n!r}] = {pyname(n)}")
            self.emit(f"        assume({var}.valid(*{var}.values(inp)))")
            self.emit(f"        result = self.run.call({op.name!r}, inp)")
            if op.name in sources:
                self.emit("        return multiple() if result is None else result")
        self.emit("", "    def teardown(self):", "        self.run.finish()")
        # Tests: every operation obligation, every invariant.
        for op in d.operations:
            judge = self.engine.judge_of(op.qualname)
            var = owners[op.name]
            for o in self.info.contract.obligations_of(op.qualname):
                if o.kind == "example":
                    self.example_test(o, var, judge, d.name)
            ids = [o.id for o in judge.judged_obligations]
            for oid in ids:
                self.machine_test(oid, cls, self.info.contract.obligations_of(op.qualname), judge)
        for o in invariants:
            self.machine_test(o.id, cls, [o], None)

    def explicit_items(self, d: SystemDecl) -> list[str]:
        """Source of ``(op, input, {param: (source op, source input)})`` per solver input."""
        items: list[str] = []
        for op in d.operations:
            plan = self.engine.plan_of(op.qualname)
            params = {p.name: self.info.signatures[op.qualname].params[i][1]
                      for i, p in enumerate(op.params) if p.from_op is None}
            sources: dict[str, str] = {}
            ok = True
            for p in op.params:
                if p.from_op is None:
                    continue
                src_q = f"{d.name}.{p.from_op}"
                src_judge = self.engine.judge_of(src_q)
                src_plan = self.engine.plan_of(src_q)
                first = next((i for i in (*src_plan.inputs, *src_plan.pool)
                              if src_judge.admits(i)), None)
                if first is None:
                    ok = False
                    break
                src_params = {n: t for n, t, _ in src_judge.signature.params}
                sources[p.name] = f"({p.from_op!r}, {_input_source(first, src_params)})"
            if not ok:
                continue
            for inp in plan.inputs:
                if not all(n in inp for n in params):
                    continue
                src = "{" + ", ".join(f"{k!r}: {v}" for k, v in sources.items()) + "}"
                items.append(f"({op.name!r}, {_input_source(inp, params)}, {src})")
        return items

    def machine_test(self, oid: str, cls: str, obligations: Sequence[Obligation],
                     judge: Any) -> None:
        o = next((x for x in obligations if x.id == oid), None)
        if o is None and judge is not None:
            o = judge.synthetic
        name = self.test_fn(oid)
        expr = getattr(o, "expr", None)
        text = to_source(expr) if expr is not None else "a normal return of the declared type"
        self.emit("", "", f"def {name}():")
        self.emit(f'    """{_header(o)}: {_doc(text)}"""')
        upper = cls[: -len("Machine")].upper()
        system = cls[: -len("Machine")]
        self.emit(
            f"    explicit_runs({system!r}, {upper}_OPS, {upper}_COUNTS, {oid!r}, "
            f"{upper}_EXPLICIT)",
            f"    machine = type({cls!r}, ({cls},), {{'FOCUS': {oid!r}}})",
            "    run_state_machine_as_test(",
            "        machine,",
            f"        settings=settings(SETTINGS, max_examples=max(10, EXAMPLES // 4), "
            f"stateful_step_count={self.steps}),",
            "    )",
        )


_RULE = "# " + "-" * 65


def _doc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _comment(text: str) -> str:
    return text.replace("\n", " ")


def _input_source(inp: Mapping[str, object], params: Mapping[str, Ty]) -> str:
    return "{" + ", ".join(f"{n!r}: {py_value(inp[n])}" for n in params if n in inp) + "}"


def _strategy_source(ty: Ty, box: Any) -> tuple[str, bool]:
    """Python source of ``_strategies.value_strategy(ty, box)`` (same rules)."""
    from ..testing import REAL_LIMIT, fold_length

    if box.exact is not None:
        v = box.exact[0]
        if isinstance(ty, TReal):
            return f"st.just({py_value(float(v))})", True
        return f"st.just({py_value(v)})", True
    if isinstance(ty, TInt):
        lo = None if box.lo is None else int(box.lo)
        hi = None if box.hi is None else int(box.hi)
        if lo is not None and hi is not None and lo > hi:
            return "st.nothing()", True
        return f"st.integers(min_value={lo!r}, max_value={hi!r})", True
    if isinstance(ty, TBool):
        return "st.booleans()", True
    if isinstance(ty, TReal):
        lo_f = -REAL_LIMIT if box.lo is None else float(box.lo)
        hi_f = REAL_LIMIT if box.hi is None else float(box.hi)
        if box.lo is not None and box.hi is None:
            hi_f = max(lo_f, 0.0) + 2 * REAL_LIMIT
        if box.hi is not None and box.lo is None:
            lo_f = min(hi_f, 0.0) - 2 * REAL_LIMIT
        return (
            f"st.floats(min_value={lo_f!r}, max_value={hi_f!r}, exclude_min={box.lo_open}, "
            f"exclude_max={box.hi_open}, allow_nan=False, allow_infinity=False)",
            True,
        )
    if isinstance(ty, TStr):
        if box.len_hi is not None and box.len_lo > box.len_hi:
            return "st.nothing()", True
        if box.patterns:
            bounded = box.len_lo > 0 or box.len_hi is not None
            regex = _regex.to_python(box.patterns[0])
            full = len(box.patterns) == 1 and not bounded
            if bounded and len(box.patterns) == 1:
                folded = fold_length(box.patterns[0], box.len_lo, box.len_hi)
                if folded is not None:
                    regex, full = folded, True
            return f"st.from_regex({regex!r}, fullmatch=True)", full
        sizes = f"min_size={box.len_lo}, max_size={box.len_hi!r}"
        if box.alphabet:
            return (f"st.one_of(st.text({sizes}), st.text(alphabet={box.alphabet!r}, {sizes}))",
                    True)
        return f"st.text({sizes})", True
    if isinstance(ty, TDate):
        lo_d = box.lo if isinstance(box.lo, date) else date.min
        hi_d = box.hi if isinstance(box.hi, date) else date.max
        return f"st.dates(min_value={py_value(lo_d)}, max_value={py_value(hi_d)})", True
    if isinstance(ty, TEnum):
        return f"st.sampled_from({list(ty.members)!r})", True
    if isinstance(ty, TList):
        from ..testing import Box

        elem, full = _strategy_source(ty.elem, box.elem or Box())
        return (
            f"st.lists({elem}, min_size={box.len_lo}, max_size={box.len_hi!r}).map(tuple)",
            full,
        )
    return "st.nothing()", False


def generate_module(
    info: TypeInfo,
    target: str,
    *,
    examples: int = EngineOptions.examples,
    steps: int = EngineOptions.steps,
    engine: Any = None,
) -> str:
    """The source of a standalone pytest module for ``info``'s contract and ``target``.

    ``target`` is written as given: a ``.py`` path (relative paths are read relative to
    the written module's folder) or a dotted module name.  ``engine`` (a
    ``forge.testing._engine.Engine``) supplies the solver's plans; one without a caller is made
    if none is given (nothing is called while writing).
    """
    if engine is None:
        from ..testing import Engine

        engine = Engine(info, _NoCaller())
    return _Writer(info, engine, target, examples, steps).write()


class _NoCaller:
    """Writing a module calls nothing."""

    def call(self, func_name: str, args: Sequence[object]) -> Any:
        raise AssertionError("the writer does not call the target")

    def new_instance(self, system: str) -> Any:
        raise AssertionError("the writer does not call the target")

    def method(self, handle: object, op: str, args: Sequence[object]) -> Any:
        raise AssertionError("the writer does not call the target")


def relative_target(target: str, output: str) -> str:
    """A ``.py`` target written relative to the output file's folder (portable modules)."""
    if not target.endswith(".py"):
        return target
    try:
        return os.path.relpath(os.path.abspath(target), os.path.dirname(os.path.abspath(output)))
    except ValueError:
        return os.path.abspath(target)
