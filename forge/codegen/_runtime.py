"""The runtime every generated test module carries (``derivative tests -o FILE``).

A written module needs nothing of derivative at run time, so it carries this code as
text: the generator (``_embed.py``) copies everything below the ``RUNTIME STARTS``
line into the module, with the annotations taken out (a written module imports only the
standard library, pytest and Hypothesis, and its reader needs no typing names).  The
lines above that one are what the written module's own header provides: its imports,
``TARGET`` and ``BINDS``; ``REL_TOL`` is set again after the runtime from the contract's
tolerance.  This module is never imported by derivative; it is a real module so that
ruff and mypy read it.

What the runtime does that Python does differently: undefinedness is the exception
``Undefined`` (so Python's own left-to-right, short-circuit evaluation gives exactly the
language's rules), floor division and modulo of reals, the float slack of comparisons,
``int(s)`` only on digit strings, date arithmetic inside the calendar, the checks of a
result's type, judging one call against an owner's clauses, and the count invariants of
systems.
"""

from __future__ import annotations

import builtins
import datetime
import decimal
import enum
import importlib
import importlib.util
import math
import os
import pathlib
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from types import ModuleType
from typing import Any, NoReturn, Protocol

from hypothesis import reject

TARGET = ""
"""The target as written into the module (a ``.py`` path or a dotted module name)."""
BINDS: dict[str, str] = {}
"""``bind`` declarations: spec name -> ``"module:attribute"``."""

Ty = tuple[Any, ...]
"""A type descriptor as ``ty_source`` writes it: ``('int', lo, hi)``, ``('list', elem)``."""
Check = Callable[..., Any]
"""A compiled condition over an owner's parameters (and ``result``)."""
Inp = Mapping[str, Any]
"""One input: parameter name -> value in the tests' representation."""


class Ordered(Protocol):
    """A value the language orders: a number, a string, a date (or a tuple of them)."""

    def __lt__(self, other: Any, /) -> bool: ...

    def __le__(self, other: Any, /) -> bool: ...

# ---------------------------------------------------------------- RUNTIME STARTS
class Undefined(Exception):
    """An expression of the contract is undefined here (docs/language.md section 4)."""


class WrongType(Exception):
    """A result is not a value of the declared type."""


REL_TOL = 1e-9
ABS_TOL = 1e-12
_DATE_MIN = datetime.date.min.toordinal()
_DATE_MAX = datetime.date.max.toordinal()


def _fin(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        raise Undefined("float overflow")
    return x


def _div(a: Any, b: Any) -> Any:
    if b == 0:
        raise Undefined("division by zero")
    if isinstance(a, float) or isinstance(b, float):
        return _fin(a / b)
    return Fraction(a) / Fraction(b)


def _floordiv(a: Any, b: Any) -> Any:
    if b == 0:
        raise Undefined("division by zero")
    if type(a) is int and type(b) is int:
        return a // b
    if isinstance(a, float) or isinstance(b, float):
        return _fin(a // b)
    return Fraction(a // b)


def _mod(a: Any, b: Any) -> Any:
    if b == 0:
        raise Undefined("modulo by zero")
    if type(a) is int and type(b) is int:
        return a % b
    if isinstance(a, float) or isinstance(b, float):
        return _fin(a % b)
    return Fraction(a % b)


def _close(a: Any, b: Any) -> bool:
    try:
        return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)
    except OverflowError:
        fa, fb = Fraction(a), Fraction(b)
        return abs(fa - fb) <= max(Fraction(REL_TOL) * max(abs(fa), abs(fb)), Fraction(ABS_TOL))


def _eq(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return sorted(a) == sorted(b) and all(_eq(a[k], b[k]) for k in a)
    if a is None or b is None:
        return a is b
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, float) or isinstance(b, float):
        return _close(a, b)
    return a == b


def _lt(a: Ordered, b: Ordered) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        for x, y in zip(a, b, strict=False):
            if not _eq(x, y):
                return _lt(x, y)
        return len(a) < len(b)
    if isinstance(a, float) or isinstance(b, float):
        return a < b and not _close(a, b)
    return a < b


def _le(a: Ordered, b: Ordered) -> bool:
    return _lt(a, b) or _eq(a, b)


def _in_range(x: Ordered, lo: Ordered, hi: Ordered) -> bool:
    return lo <= x <= hi


def _member(x: Any, xs: Iterable[Any]) -> bool:
    return any(_eq(x, y) for y in xs)


def _occurrences(xs: Iterable[Any], x: Any) -> int:
    return sum(1 for y in xs if _eq(x, y))


def _key(d: dict[Any, Any], k: Any) -> Any:
    """``d[k]``: undefined for a missing key."""
    if k in d:
        return d[k]
    raise Undefined("no such key")


def _value(x: Any) -> Any:
    """``value(x)``: undefined when ``x`` is none."""
    if x is None:
        raise Undefined("value() of none")
    return x


def _dict(*pairs: tuple[Any, Any]) -> dict[Any, Any]:
    """A dict literal: keys of one kind (int or str), a later equal key wins."""
    if len({type(k) is str for k, _ in pairs}) > 1:
        raise Undefined("dict keys of two kinds")
    return dict(pairs)


def _index(xs: Sequence[Any], i: int) -> Any:
    if 0 <= i < len(xs):
        return xs[i]
    raise Undefined("index out of range")


def _int(s: str) -> int:
    if s.isascii() and s.isdigit():
        return int(s) if len(s) <= 4000 else int(decimal.Decimal(s))
    raise Undefined("int() of a string that is not digits")


def _str(n: int) -> str:
    return str(n) if n.bit_length() < 12000 else str(decimal.Decimal(n))


def _date_add(d: datetime.date, n: int) -> datetime.date:
    o = d.toordinal() + n
    if _DATE_MIN <= o <= _DATE_MAX:
        return datetime.date.fromordinal(o)
    raise Undefined("date out of range")


def _date_diff(a: datetime.date, b: datetime.date) -> int:
    return a.toordinal() - b.toordinal()


def _date_arith(a: Any, op: str, b: Any) -> Any:
    if op == "-" and isinstance(b, datetime.date):
        return _date_diff(a, b)
    if op == "-":
        return _date_add(a, -b)
    return _date_add(a, b) if isinstance(a, datetime.date) else _date_add(b, a)


def _run(op: str, *xs: Any) -> Any:
    """A run ``x0 op x1 op ...`` of ``+`` or ``*`` (three operands or more), folded from the
    left with the language's step: a date stays in the calendar, a float stays finite.

    One call, not one nested expression per step: a sum of thousands of terms would nest
    past what Python compiles.  The operands are evaluated first (they have no short
    circuit); a step that fails raises ``Undefined`` as the nested form would.
    """
    acc = xs[0]
    for x in xs[1:]:
        if op == "*":
            acc = acc * x
        elif isinstance(acc, datetime.date) or isinstance(x, datetime.date):
            acc = _date_arith(acc, "+", x)
        else:
            acc = acc + x
        acc = _fin(acc)
    return acc


def _min(*args: Any) -> Any:
    items = args[0] if len(args) == 1 else args
    if not items:
        raise Undefined("min() of an empty list")
    return min(items)


def _max(*args: Any) -> Any:
    items = args[0] if len(args) == 1 else args
    if not items:
        raise Undefined("max() of an empty list")
    return max(items)


def _sum(xs: Iterable[Any]) -> Any:
    acc = 0
    for x in xs:
        acc = _fin(acc + x)
    return acc


def _product(xs: Iterable[Any]) -> Any:
    acc = 1
    for x in xs:
        acc = _fin(acc * x)
    return acc


# ---- ** and the text built-ins: ASCII case and white space (docs/language.md 7.5)

_POW_MAX_BITS = 1 << 22
_TO_LOWER = {c: c + 32 for c in range(65, 91)}
_TO_UPPER = {c: c - 32 for c in range(97, 123)}
_SPACE = " \t\n\r\x0b\x0c"


def _pow(a: Any, n: int) -> Any:
    if n < 0:
        raise Undefined("negative exponent")
    if isinstance(a, float):
        try:
            return _fin(a**n)
        except OverflowError:
            raise Undefined("float overflow") from None
    num, den = (a, 1) if type(a) is int else (a.numerator, a.denominator)
    widest = max(abs(num), den)
    if widest > 1 and (widest.bit_length() - 1) * n > _POW_MAX_BITS:
        raise MemoryError("** would need more than 4 million bits")
    return a**n


def _lower(s: str) -> str:
    return s.translate(_TO_LOWER)


def _upper(s: str) -> str:
    return s.translate(_TO_UPPER)


def _strip(s: str) -> str:
    return s.strip(_SPACE)


def _split(s: str, sep: str) -> tuple[str, ...]:
    if not sep:
        raise Undefined("split() with an empty separator")
    return tuple(s.split(sep))


def _join(sep: str, xs: Iterable[str]) -> str:
    return sep.join(xs)


def _ord(c: str) -> int:
    if len(c) != 1:
        raise Undefined("ord() of a string that is not one character")
    return ord(c)


def _chr(n: int) -> str:
    if not 0 <= n <= 0x2FFFF:
        raise Undefined("chr() outside 0..0x2FFFF")
    return chr(n)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _matches(s: str, pattern: str) -> bool:
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        compiled = _PATTERNS[pattern] = re.compile(pattern)
    return compiled.fullmatch(s) is not None


def _holds(condition: Check, *args: Any) -> bool:
    """A precondition: true only if defined and true."""
    try:
        return condition(*args) is True
    except Undefined:
        return False


def _conform(value: Any, ty: Ty) -> Any:
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
    return _conform_compound(value, ty)


def _conform_compound(value: Any, ty: Ty) -> Any:
    """Tuples (a Python tuple of the right length), optionals and dicts (a Python dict)."""
    kind = ty[0]
    if kind == "tuple":
        if not isinstance(value, tuple) or len(value) != len(ty[1]):
            raise WrongType
        return tuple(_conform(v, t) for v, t in zip(value, ty[1], strict=True))
    if kind == "optional":
        return None if value is None else _conform(value, ty[1])
    if kind == "dict":
        if not isinstance(value, dict):
            raise WrongType
        return {_conform(k, ty[1]): _conform(v, ty[2]) for k, v in value.items()}
    raise WrongType


def _show(value: Any) -> str:
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

def _load_target() -> ModuleType:
    target = os.environ.get("DERIVATIVE_TARGET", TARGET)
    if target.endswith(".py"):
        path = pathlib.Path(target)
        if not path.is_absolute():
            path = pathlib.Path(__file__).resolve().parent / path
        folder = str(path.parent)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        spec = importlib.util.spec_from_file_location("_derivative_target", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["_derivative_target"] = module
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(target)


_TARGET_MODULE: ModuleType | None = None


def _target() -> ModuleType:
    global _TARGET_MODULE
    if _TARGET_MODULE is None:
        _TARGET_MODULE = _load_target()
    return _TARGET_MODULE


def _resolve(name: str) -> Any:
    where = BINDS.get(name)
    if where is not None:
        module_name, _, attr = where.partition(":")
        obj = importlib.import_module(module_name) if module_name else _target()
        for part in (attr or name).split("."):
            obj = getattr(obj, part)
        return obj
    return getattr(_target(), name)


def _arg(value: Any, ty: Ty) -> Any:
    """A test value as the implementation takes it: lists as lists, enum values as the
    target's own Enum members where it defines that Enum (else the member name)."""
    kind = ty[0]
    if kind == "list":
        return [_arg(v, ty[1]) for v in value]
    if kind == "tuple":
        return tuple(_arg(v, t) for v, t in zip(value, ty[1], strict=True))
    if kind == "optional":
        return None if value is None else _arg(value, ty[1])
    if kind == "dict":
        return {_arg(k, ty[1]): _arg(v, ty[2]) for k, v in value.items()}
    if kind == "enum":
        cls = getattr(_target(), ty[1], None)
        if isinstance(cls, type) and issubclass(cls, enum.Enum) and value in cls.__members__:
            return cls[value]
        return value
    if isinstance(value, Fraction):
        return float(value)
    return value


class Returned:
    def __init__(self, value: Any) -> None:
        self.value = value

    def __str__(self) -> str:
        return f"returned {_show(self.value)}"

    def __repr__(self) -> str:
        """The value, as an interleaving's trace shows a thread's result."""
        return _show(self.value)


# The built-in classes, taken when this module is imported (before the target is): a raised
# class is a built-in exception only if it IS one of these, whatever its name.  type's own
# descriptors read a class's real MRO, name and module (a metaclass cannot answer for them).
_BUILTIN_TYPES = {k: v for k, v in vars(builtins).items() if isinstance(v, type)}
_TYPE_MRO = type.__dict__["__mro__"].__get__
_TYPE_NAME = type.__dict__["__name__"].__get__
_TYPE_MODULE = type.__dict__["__module__"].__get__


def _module_of(cls: type) -> str:
    try:
        module = _TYPE_MODULE(cls)
    except AttributeError:
        return "?"
    return module if type(module) is str else "?"


def _in_package(module: str, home: str) -> bool:
    return module == home or module.startswith(home + ".")


def _own(module: str) -> bool:
    """Whether ``module`` is the target's own code: the target module, or a module whose
    file lies in the target's folder (its top-level package's folder for a package)."""
    target = _target()
    if module == target.__name__:
        return True
    top = sys.modules.get(target.__name__.partition(".")[0], target)
    file = getattr(top, "__file__", None)
    found = getattr(sys.modules.get(module), "__file__", None)
    if not isinstance(file, str) or not isinstance(found, str):
        return False
    root = os.path.dirname(os.path.abspath(file))
    return os.path.abspath(found).startswith(root + os.sep)


class Raised:
    def __init__(self, exc: BaseException) -> None:
        self.classes = _TYPE_MRO(type(exc))
        self.names = tuple(str.__str__(_TYPE_NAME(c)) for c in self.classes)
        self.message = str(exc)[:500]

    def is_a(self, name: str) -> bool:
        """Whether this is the contract's exception ``name`` or a subclass: a built-in name
        means the built-in class itself; a declared one the class of that name defined in
        the target's own code (or in the module ``BINDS`` names, or a module inside it)."""
        real = _BUILTIN_TYPES.get(name)
        if real is not None and issubclass(real, BaseException):
            return any(c is real for c in self.classes)
        attr, home = name, ""
        if name in BINDS:
            home, _, path = BINDS[name].partition(":")
            attr = (path or name).rpartition(".")[2]
        for c, n in zip(self.classes, self.names, strict=True):
            if n != attr or _BUILTIN_TYPES.get(attr) is c:
                continue
            module = _module_of(c)
            if _own(module) or (home and _in_package(module, home)):
                return True
        return False

    def __repr__(self) -> str:
        return f"<raised {self.names[0]}>"

    def __str__(self) -> str:
        text = f"raised {self.names[0]}" + (f"({self.message!r})" if self.message else "")
        first = self.classes[0]
        if self.names[0] in _BUILTIN_TYPES and _BUILTIN_TYPES[self.names[0]] is not first:
            module = _module_of(first)
            where = f"candidate module {module!r}" if _own(module) else f"module {module!r}"
            text += f" (defined in {where}, not the built-in)"
        return text


def _invoke(fn: Callable[..., Any], args: Sequence[Any]) -> Returned | Raised:
    try:
        return Returned(fn(*args))
    except Exception as exc:
        return Raised(exc)


# ----------------------------------------------------------------- judging one call

class Clause:
    """One obligation of an owner: how to check it and how to name it in a failure."""

    def __init__(
        self,
        id: str,
        kind: str,
        header: str,
        check: Any,
        exception: str | None = None,
        reads_result: bool = False,
        source: str = "",
    ) -> None:
        self.id = id
        self.kind = kind
        self.header = header
        self.check = check
        self.exception = exception
        self.reads_result = reads_result
        self.source = source


class Owner:
    """A function or an operation: its parameters, result type and clauses."""

    def __init__(
        self,
        name: str,
        params: Sequence[tuple[str, Ty]],
        returns: Ty,
        valid: Check,
        clauses: Sequence[Clause],
        synthetic: Clause | None = None,
    ) -> None:
        self.name = name
        self.params = params
        self.returns = returns
        self.valid = valid
        self.raises = [c for c in clauses if c.kind == "raises"]
        self.ensures = [c for c in clauses if c.kind == "ensures"]
        self.synthetic = synthetic
        self.ids = [c.id for c in clauses] + ([synthetic.id] if synthetic else [])

    def args(self, inp: Inp) -> list[Any]:
        return [_arg(inp[name], ty) for name, ty in self.params]

    def values(self, inp: Inp) -> list[Any]:
        return [inp[name] for name, _ in self.params]

    def call_text(self, inp: Inp) -> str:
        return self.name + "(" + ", ".join(f"{n}={_show(inp[n])}" for n, _ in self.params) + ")"


def _failure(
    clause: Clause, owner: Owner, inp: Inp, outcome: Returned | Raised, required: str
) -> str:
    return (
        f"{clause.header} failed\n"
        f"  input:    {owner.call_text(inp)}\n"
        f"  got:      {outcome}\n"
        f"  required: {required}"
    )


def judge(owner: Owner, inp: Inp, outcome: Returned | Raised) -> tuple[dict[str, str], Any]:
    """Failures of every clause of ``owner`` at the valid input ``inp``: id -> message.
    Also returns the conforming result (or None)."""
    failures: dict[str, str] = {}
    holding: list[Clause] = []
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
        wanted = [str(c.exception) for c in holding]
        if isinstance(outcome, Raised) and any(outcome.is_a(w) for w in wanted):
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


def check_function(owner: Owner, inp: Inp, focus: str) -> None:
    """The test of one obligation of a function at one input."""
    if not owner.valid(*owner.values(inp)):
        reject()
    outcome = _invoke(_resolve(owner.name), owner.args(inp))
    failures, _ = judge(owner, inp, outcome)
    if focus in failures:
        raise AssertionError(failures[focus])


def check_example(
    owner: Owner,
    inp: Inp,
    expected: Any,
    exception: str | None,
    header: str,
    system: str | None = None,
) -> None:
    """An ``example``: the call returns ``expected`` (or raises ``exception``)."""
    fn = _resolve(owner.name) if system is None else getattr(_resolve(system)(), owner.name)
    outcome = _invoke(fn, owner.args(inp))
    call = owner.call_text(inp)
    if exception is not None:
        if isinstance(outcome, Raised) and outcome.is_a(exception):
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

    def __init__(
        self,
        invariant: str,
        header: str,
        op: str,
        where: Check | None,
        per: str | None,
        cmp: str,
        bound: int,
        text: str,
    ) -> None:
        self.invariant = invariant
        self.header = header
        self.op = op
        self.where = where
        self.per = per
        self.upper = cmp in ("<=", "<", "==")
        self.limit = bound - 1 if cmp == "<" else bound + 1 if cmp == ">" else bound
        self.text = text

    def holds(self, n: int) -> bool:
        return n <= self.limit if self.upper else n >= self.limit


def _conforming(outcome: Returned | Raised, owner: Owner) -> Any:
    """The returned value in the tests' representation; None if it raised or does not
    conform to the declared result type."""
    if not isinstance(outcome, Returned):
        return None
    try:
        return _conform(outcome.value, owner.returns)
    except WrongType:
        return None


def _count_hit(c: Count, owner: Owner, inp: Inp, outcome: Returned) -> bool | None:
    """Whether a call that returned is counted by ``c`` (None: its predicate is undefined)."""
    try:
        return True if c.where is None else bool(c.where(*owner.values(inp),
                                                         _conforming(outcome, owner)))
    except Undefined:
        return None


WITNESSES: dict[tuple[str, int], tuple[list[tuple[str, Inp, Any]], str, Inp]] = {}
"""Per (invariant, index of its count): the first call the count counted in a run focused
on that invariant, with the calls made on that instance before it (``calls``, operation,
input).  The concurrent hammer replays those calls and makes that one from threads."""


class SystemRun:
    """One instance's life in a state machine: calls, judgements and counts."""

    def __init__(
        self, system: str, ops: Mapping[str, Owner], counts: Sequence[Count], focus: str | None
    ) -> None:
        self.system = system
        self.ops = ops
        self.counts = counts
        self.focus = focus
        self.instance = _resolve(system)()
        self.trace = [f"{system}() -> s"]
        self.tally: list[dict[Any, int]] = [{} for _ in counts]
        self.keys: list[set[Any]] = [set() for _ in counts]
        self.calls: list[tuple[str, Inp, Any]] = []
        """Every call so far: (operation, input, conforming result or None)."""

    def _fail(self, header: str, got: str, required: str) -> NoReturn:
        calls = "\n            ".join(self.trace)
        raise AssertionError(f"{header} failed\n  calls:    {calls}\n  got:      {got}\n"
                             f"  required: {required}")

    def call(self, op: str, inp: Inp) -> Any:
        owner = self.ops[op]
        outcome = _invoke(getattr(self.instance, op), owner.args(inp))
        self.trace.append(f"s.{owner.call_text(inp)} -> {outcome}")
        failures, _ = judge(owner, inp, outcome)
        if self.focus in failures:
            raise AssertionError(failures[self.focus] + "\n  calls:    "
                                 + "\n            ".join(self.trace))
        value = _conforming(outcome, owner)
        before = list(self.calls)
        self.calls.append((op, dict(inp), value))
        if not isinstance(outcome, Returned):
            return None
        for i, c in enumerate(self.counts):
            if c.op != op:
                continue
            key = inp[c.per] if c.per else None
            self.keys[i].add(key)
            hit = _count_hit(c, owner, inp, outcome)
            if hit is None and c.invariant == self.focus:
                self._fail(c.header, "the count predicate is undefined for this call", c.text)
            if hit:
                if c.invariant == self.focus:
                    WITNESSES.setdefault((c.invariant, i), (before, op, dict(inp)))
                self.tally[i][key] = self.tally[i].get(key, 0) + 1
                n = self.tally[i][key]
                if c.upper and not c.holds(n) and c.invariant == self.focus:
                    self._fail(c.header, f"the count reached {n}", c.text)
        return value

    def finish(self) -> None:
        for i, c in enumerate(self.counts):
            if c.upper or c.invariant != self.focus:
                continue
            keys = self.keys[i] or ({None} if c.per is None else set())
            for key in keys:
                n = self.tally[i].get(key, 0)
                if not c.holds(n):
                    self._fail(c.header, f"the count ended at {n}", c.text)


def explicit_runs(
    system: str,
    ops: Mapping[str, Owner],
    counts: Sequence[Count],
    focus: str | None,
    items: Iterable[tuple[str, Inp, Mapping[str, tuple[str, Inp]]]],
) -> None:
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
