"""The test oracle: judges one concrete call against the obligations of its owner.

The oracle lives on the host and reads only what came back from a call (a value, or
the classes and message of a raised exception), never the candidate's objects
themselves, so the same oracle judges an in-process call and a call that crossed the
sandbox channel.  It judges with the language's evaluator (``derivative._eval``), the
reference meaning of every expression.

Rules (docs/language.md §6-8; decisions where the design is silent are marked *decided*):

- **Validity.**  An input is valid when every ``requires`` of the owner is *true*
  (undefined is not true) and every argument conforms to its declared type
  (refinements included).  Invalid inputs are never judged.
- **Raises.**  Where one or more ``raises`` conditions hold, the call must raise one of
  their exceptions or a subclass; raising any one of them satisfies every holding
  clause.  Where none holds the call must return normally.  A class *is* one of them by
  identity, never by name alone (``Raised.is_a``): a built-in name means the built-in
  class (a candidate's own ``class ValueError(Exception)`` is not it, since a caller's
  ``except ValueError`` would not catch it); a declared exception means the class of
  that name defined in the candidate's own code, or where the spec ``bind``s it.
- **Ensures** are judged on normal returns where no ``raises`` condition holds, with
  ``result`` bound to the returned value converted to the language's representation.
  False or *undefined* is a failure: undefined evaluation is never a pass.
- **Result types.**  A result must conform to the declared return type: ``int`` only a
  Python ``int`` that is not a ``bool``; ``real`` an int, Fraction or finite float;
  ``date`` a ``datetime.date`` that is not a ``datetime``; an enum the candidate's Enum
  member of that name (by class name) or the member's name as ``str``; a list any
  Python list or tuple whose elements conform; ``none`` only ``None``.
- *decided*: a result of the wrong type fails every ``ensures`` that reads ``result``;
  a call that raises where no ``raises`` condition holds fails every ``ensures`` and
  every ``raises`` clause of its owner (``raises E when C`` means "E exactly where C").
  When the owner has no ``ensures`` reading ``result``, a synthetic obligation
  ``<owner>.returns`` (kind ``returns``) carries the result-type and normal-return rules
  so that neither is ever unchecked.
- *decided*: a ``raises`` condition that is undefined at a valid input fails that
  clause (the contract cannot say what is required there, and undefined is never a
  pass); for the rest of the judgement the condition counts as not holding.
"""

from __future__ import annotations

import builtins
import enum
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from fractions import Fraction
from typing import Final

from derivative._ast import BindDecl, Call, Compare, Expr, Obligation, Result
from derivative._builtins import BUILTIN_EXCEPTIONS
from derivative._eval import Evaluator
from derivative._evalops import Comparer, conforms, is_int
from derivative._numbers import number_source
from derivative._printer import quote, to_source
from derivative._typecheck import TypeInfo
from derivative._types import (
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
)
from derivative._values import DictValue, EnumValue, TupleValue, _Undefined
from derivative._walk import walk

__all__ = [
    "NOT_CONFORMING",
    "Failure",
    "Judge",
    "Judgement",
    "Outcome",
    "Raised",
    "SyntheticObligation",
    "describe",
    "describe_input",
    "describe_outcome",
    "normalize",
]


# --------------------------------------------------------------------------- outcomes


_BUILTIN_TYPES: Final[dict[str, type]] = {
    name: obj for name, obj in vars(builtins).items() if isinstance(obj, type)
}
"""The interpreter's built-in classes by name, captured when derivative is imported: before
any candidate runs in this interpreter (``derivative tests``), so rebinding a name in
``builtins`` cannot make a look-alike the built-in."""

_TYPE_MRO = type.__dict__["__mro__"].__get__
_TYPE_NAME = type.__dict__["__name__"].__get__
_TYPE_MODULE = type.__dict__["__module__"].__get__
"""``type``'s own descriptors: a metaclass can answer ``cls.__mro__`` or ``cls.__name__``
with a property of its own, but not these, which read the class object itself (its MRO is
the one ``except`` clauses search)."""


def class_facts(exc: BaseException) -> tuple[tuple[str, str, bool], ...]:
    """``(name, module, builtin)`` for each class of ``exc``'s real MRO, most derived first.

    ``builtin`` says whether the class *is* the built-in class of that name (identity, not
    name), ``module`` is its ``__module__`` when that is a dotted name, else ``"?"``.
    """
    out: list[tuple[str, str, bool]] = []
    for cls in _TYPE_MRO(type(exc))[:64]:
        name = str.__str__(_TYPE_NAME(cls))  # a str subclass as __name__: its plain text
        try:
            module = _TYPE_MODULE(cls)
        except AttributeError:
            module = None
        if not isinstance(module, str) or not all(p.isidentifier() for p in module.split(".")):
            module = "?"
        out.append((name, module, _BUILTIN_TYPES.get(name) is cls))
    return tuple(out)


def in_package(module: str, home: str) -> bool:
    """Whether ``module`` is ``home`` or a module inside it (``home.sub``)."""
    return module == home or module.startswith(home + ".")


@dataclass(frozen=True)
class Raised:
    """A raised exception as the oracle sees it: its classes (real MRO order), message.

    Beside each class name it keeps where the class comes from, because a name alone
    proves nothing (a candidate can define its own ``class ValueError(Exception)``, which
    a caller's ``except ValueError`` does not catch): ``modules`` (the defining module,
    ``"?"`` when unknown), ``builtin`` (the class *is* the interpreter's built-in of that
    name, decided by identity where the class lives) and ``own`` (it is defined in the
    candidate's own code).  A ``Raised`` made without them (a sandbox failure, a thread
    that never finished) matches no exception of a contract.
    """

    names: tuple[str, ...]
    message: str = ""
    modules: tuple[str, ...] = ()
    builtin: tuple[bool, ...] = ()
    own: tuple[bool, ...] = ()

    @property
    def name(self) -> str:
        return self.names[0] if self.names else "<unknown exception>"

    def _entries(self) -> zip[tuple[str, str, bool, bool]]:
        n = len(self.names)
        if not len(self.modules) == len(self.builtin) == len(self.own) == n:
            return zip((), (), (), (), strict=True)
        return zip(self.names, self.modules, self.builtin, self.own, strict=True)

    def is_a(self, name: str, bind: str | None = None) -> bool:
        """Whether the exception is the contract's exception ``name`` or a subclass of it.

        A built-in exception name means the built-in class itself (identity): a class of
        the same name defined elsewhere is not it.  A declared exception means the
        candidate's own class of that name (defined in the candidate's code), or, when the
        spec binds it (``bind`` is ``"module:attribute"``), the class of the attribute's
        name defined in that module or a module inside it; never a built-in.
        """
        if name in BUILTIN_EXCEPTIONS:
            return any(n == name and b for n, _, b, _ in self._entries())
        attr, home = name, ""
        if bind is not None:
            home, _, path = bind.partition(":")
            attr = (path or name).rpartition(".")[2]
        return any(
            n == attr and not b and (o or (bool(home) and in_package(m, home)))
            for n, m, b, o in self._entries()
        )

    @property
    def lookalike(self) -> str:
        """Where the class comes from when it only looks like a built-in (``"defined in
        candidate module 'm', not the built-in"``), so that a report cannot be misread;
        ``""`` otherwise."""
        entries = list(self._entries())
        if not entries or self.name not in _BUILTIN_TYPES or entries[0][2]:
            return ""
        _, module, _, own = entries[0]
        where = ("an unknown module" if module == "?" else
                 f"candidate module {module!r}" if own else f"module {module!r}")
        return f"defined in {where}, not the built-in"

    @classmethod
    def of(cls, exc: BaseException, own: Callable[[str], bool] | None = None) -> Raised:
        """The exception ``exc`` (a real object in this interpreter); ``own(module)`` says
        whether a module is part of the candidate (None: no module is)."""
        try:
            facts = class_facts(exc)
        except Exception:  # a class that cannot be read matches nothing
            facts = (("<unreadable exception class>", "?", False),)
        try:
            message = str(exc)
        except Exception:  # a hostile __str__ must not crash the judge
            message = "<unprintable message>"
        mine = tuple(m != "?" and not b and own is not None and own(m) for _, m, b in facts)
        return cls(tuple(n for n, _, _ in facts), message[:2000],
                   tuple(m for _, m, _ in facts), tuple(b for _, _, b in facts), mine)


@dataclass(frozen=True, repr=False)
class Outcome:
    """What one call gave: a returned ``value`` or ``raised`` (then ``value`` is None).

    ``undefined`` says, in a sentence, that no call was made because the candidate does not
    provide what the contract names (``the candidate defines no 'f'``): then ``raised``
    describes the lookup's failure, and the engine reports the owner once instead of
    judging each of its obligations against it."""

    value: object = None
    raised: Raised | None = None
    undefined: str | None = None

    def __repr__(self) -> str:
        if self.raised is not None:
            return f"<raised {self.raised.name}>"
        return describe(self.value)

    @classmethod
    def returned(cls, value: object) -> Outcome:
        return cls(value=value)

    @classmethod
    def error(cls, exc: BaseException, own: Callable[[str], bool] | None = None) -> Outcome:
        return cls(raised=Raised.of(exc, own))

    @classmethod
    def missing(cls, sentence: str) -> Outcome:
        """The candidate does not provide the function, class or operation called."""
        return cls(raised=Raised(("Undefined",), sentence), undefined=sentence)


# --------------------------------------------------------------------------- values


class _NotConforming:
    """The result of ``normalize`` for a value that is not of the required type."""

    _instance: _NotConforming | None = None

    def __new__(cls) -> _NotConforming:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_CONFORMING"


NOT_CONFORMING: Final = _NotConforming()


def normalize(value: object, ty: Ty) -> object:
    """A candidate's value in the language's representation, or ``NOT_CONFORMING``.

    Lists become tuples, enum members ``EnumValue``, dates plain ``date`` objects, str
    subclasses plain ``str``; the value must then conform to ``ty`` (refinements too).
    """
    v = _convert(value, ty, 0)
    if v is NOT_CONFORMING or not conforms(v, ty):
        return NOT_CONFORMING
    return v


def _convert(value: object, ty: Ty, depth: int) -> object:
    if depth > 100:
        return NOT_CONFORMING
    if isinstance(ty, TInt):
        return int(value) if is_int(value) else NOT_CONFORMING
    if isinstance(ty, TBool):
        return bool(value) if isinstance(value, bool) else NOT_CONFORMING
    if isinstance(ty, TReal):
        if is_int(value):
            return int(value)
        if isinstance(value, float):
            return float(value) if math.isfinite(value) else NOT_CONFORMING
        if isinstance(value, Fraction):
            return Fraction(value.numerator, value.denominator)
        return NOT_CONFORMING
    if isinstance(ty, TStr):
        return str.__str__(value) if isinstance(value, str) else NOT_CONFORMING
    if isinstance(ty, TDate):
        if isinstance(value, date) and not isinstance(value, datetime):
            return date(value.year, value.month, value.day)
        return NOT_CONFORMING
    if isinstance(ty, TList):
        if not isinstance(value, (list, tuple)):
            return NOT_CONFORMING
        items = []
        for item in value:
            c = _convert(item, ty.elem, depth + 1)
            if c is NOT_CONFORMING:
                return NOT_CONFORMING
            items.append(c)
        return tuple(items)
    if isinstance(ty, TEnum):
        return _enum_value(value, ty)
    if isinstance(ty, TNone):
        return None if value is None else NOT_CONFORMING
    return _convert_compound(value, ty, depth)


def _convert_compound(value: object, ty: Ty, depth: int) -> object:
    """A tuple result must be a Python tuple of the right length (a list is not one), an
    optional ``None`` or a value, a dict a Python ``dict`` (``Counter`` and friends too)."""
    if isinstance(ty, TTuple):
        if not isinstance(value, tuple) or len(value) != len(ty.items):
            return NOT_CONFORMING
        items = [_convert(v, t, depth + 1) for v, t in zip(value, ty.items, strict=True)]
        if any(c is NOT_CONFORMING for c in items):
            return NOT_CONFORMING
        return TupleValue(tuple(items))
    if isinstance(ty, TOptional):
        return None if value is None else _convert(value, ty.elem, depth + 1)
    if isinstance(ty, TDict):
        if not isinstance(value, dict):
            return NOT_CONFORMING
        pairs = []
        for k, v in value.items():
            ck, cv = _convert(k, ty.key, depth + 1), _convert(v, ty.value, depth + 1)
            if ck is NOT_CONFORMING or cv is NOT_CONFORMING:
                return NOT_CONFORMING
            pairs.append((ck, cv))
        return DictValue.of(pairs)
    return NOT_CONFORMING


def _enum_value(value: object, ty: TEnum) -> object:
    if isinstance(value, EnumValue):
        ok = value.enum == ty.name and value.member in ty.members
        return EnumValue(ty.name, value.member) if ok else NOT_CONFORMING
    if isinstance(value, enum.Enum):
        # The candidate's own Enum of that name; a member of another enum is a mistake.
        if type(value).__name__ == ty.name and value.name in ty.members:
            return EnumValue(ty.name, value.name)
        return NOT_CONFORMING
    if isinstance(value, str) and not isinstance(value, enum.Enum):
        name = str.__str__(value)
        return EnumValue(ty.name, name) if name in ty.members else NOT_CONFORMING
    return NOT_CONFORMING


def describe(value: object, limit: int = 200) -> str:
    """A value as a person reads it: the language's syntax where it is a language value."""
    text = _describe(value, 0)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(value: object, depth: int) -> str:
    if depth > 20:
        return "..."
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_int(value):
        return str(value)
    if isinstance(value, Fraction | float):
        return number_source(value)
    if isinstance(value, EnumValue):
        return str(value)
    if isinstance(value, str) and type(value) is str:
        return quote(value)
    if isinstance(value, date) and type(value) is date:
        return f'date("{value.isoformat()}")'
    if isinstance(value, tuple) and type(value) is tuple:
        return "[" + ", ".join(_describe(v, depth + 1) for v in value) + "]"
    if isinstance(value, TupleValue):
        inner = ", ".join(_describe(v, depth + 1) for v in value.items)
        return "(" + inner + ("," if len(value.items) == 1 else "") + ")"
    if isinstance(value, DictValue):
        pairs = (f"{_describe(k, depth + 1)}: {_describe(v, depth + 1)}" for k, v in value.entries)
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, _Undefined):
        return "undefined"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    try:
        text = repr(value)
    except Exception:
        text = "<unprintable>"
    return f"{text[:150]} (a Python {type(value).__name__})"


def describe_input(func: str, args: Mapping[str, object]) -> str:
    """``f(x=1, s="a")``: a call as the report shows it."""
    inner = ", ".join(f"{k}={describe(v)}" for k, v in args.items())
    return f"{func}({inner})"


def describe_outcome(outcome: Outcome) -> str:
    if outcome.raised is not None:
        raised = outcome.raised
        msg = f"({raised.message!r})" if raised.message else ""
        note = f" ({raised.lookalike})" if raised.lookalike else ""
        return f"raised {raised.name}{msg}{note}"
    return f"returned {describe(outcome.value)}"


# --------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class SyntheticObligation:
    """``<owner>.returns``: the result-type and normal-return rules, where no ensures
    reads ``result`` (see the module docstring)."""

    id: str
    owner: str
    file: str
    line: int
    kind: str = "returns"
    text: str | None = "returns normally a value of the declared type"


@dataclass(frozen=True)
class Failure:
    """One obligation failed at one input, in the obligation's words."""

    obligation_id: str
    kind: str
    text: str | None
    file: str
    line: int
    call: str
    came_back: str
    required: str
    input: Mapping[str, object] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def render(self) -> str:
        title = f"{self.obligation_id}"
        if self.text:
            title += f' "{self.text}"'
        return (
            f"{title} ({self.where}) failed\n"
            f"  input:    {self.call}\n"
            f"  got:      {self.came_back}\n"
            f"  required: {self.required}"
        )


@dataclass
class Judgement:
    """What one call showed: obligations judged, failures, and the raises conditions."""

    judged: set[str] = field(default_factory=set)
    failures: list[Failure] = field(default_factory=list)
    raising: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.failures


def _reads_result(expr: Expr) -> bool:
    return any(isinstance(n, Result) for n in walk(expr))


AnyObligation = Obligation | SyntheticObligation


class Judge:
    """The oracle for one owner (a function, or an operation ``System.op``).

    It holds the owner's ``requires``, ``ensures`` and ``raises`` obligations and its
    signature, and judges calls with ``judge(args, outcome)``.  ``evaluator`` may be
    shared; a fresh one is built from the constants otherwise.
    """

    def __init__(self, info: TypeInfo, owner: str, evaluator: Evaluator | None = None) -> None:
        self.info = info
        self.owner = owner
        self.signature = info.signatures[owner]
        self.func = owner.rpartition(".")[2]
        self.evaluator = evaluator or make_evaluator(info)
        self.comparer = Comparer(self.evaluator.rel_tol)
        obligations = info.contract.obligations_of(owner)
        self.requires = tuple(o for o in obligations if o.kind == "requires")
        self.ensures = tuple(o for o in obligations if o.kind == "ensures")
        self.raises = tuple(o for o in obligations if o.kind == "raises")
        self.examples = tuple(o for o in obligations if o.kind == "example")
        self.param_types = {n: t for n, t, _ in self.signature.params}
        self.reading = tuple(o for o in self.ensures if _reads_result(o.expr))
        self.binds = {d.name: d.target for d in info.contract.declarations
                      if isinstance(d, BindDecl)}
        self.synthetic: SyntheticObligation | None = None
        if not self.reading:
            file, line = _decl_position(info, owner)
            self.synthetic = SyntheticObligation(f"{owner}.returns", owner, file, line)

    # ------------------------------------------------------------------ inputs

    @property
    def judged_obligations(self) -> tuple[AnyObligation, ...]:
        """Every obligation ``judge`` may report on (examples are judged separately)."""
        out: tuple[AnyObligation, ...] = (*self.ensures, *self.raises)
        return (*out, self.synthetic) if self.synthetic is not None else out

    def admits(self, args: Mapping[str, object]) -> bool:
        """Whether ``args`` is a valid input: types conform and every requires is true."""
        for name, ty in self.param_types.items():
            if name not in args or not conforms(args[name], ty):
                return False
        return all(self.evaluator.holds(o.expr, args) is True for o in self.requires)

    # ------------------------------------------------------------------ judging

    def judge(self, args: Mapping[str, object], outcome: Outcome) -> Judgement:
        """Judge one call of a valid input (see the module docstring for the rules)."""
        j = Judgement()
        call = describe_input(self.func, args)
        came_back = describe_outcome(outcome)
        holding: list[Obligation] = []
        for o in self.raises:
            j.judged.add(o.id)
            h = self.evaluator.holds(o.expr, args)
            if h is True:
                holding.append(o)
            elif isinstance(h, _Undefined):
                j.failures.append(
                    self._failure(o, call, args, came_back,
                                  f"the condition `{to_source(o.expr)}` of raises "
                                  f"{o.exception} is undefined at this input")
                )
        j.raising = tuple(o.id for o in holding)
        if holding:
            wanted = [o.exception or "" for o in holding]
            if any(self.raised_is(outcome, w) for w in wanted):
                return j
            need = " or ".join(dict.fromkeys(wanted))
            for o in holding:
                j.failures.append(
                    self._failure(o, call, args, came_back,
                                  f"raise {need} (or a subclass), because "
                                  f"`{to_source(o.expr)}` holds")
                )
            return j
        if outcome.raised is not None:
            targets: list[AnyObligation] = [*self.ensures, *self.raises]
            if self.synthetic is not None:
                targets.append(self.synthetic)
            for t in targets:
                j.judged.add(t.id)
                j.failures.append(
                    self._failure(t, call, args, came_back,
                                  "a normal return: no raises condition holds here")
                )
            return j
        returns = self.signature.returns
        value = normalize(outcome.value, returns)
        if self.synthetic is not None:
            j.judged.add(self.synthetic.id)
            if value is NOT_CONFORMING:
                j.failures.append(
                    self._failure(self.synthetic, call, args, came_back,
                                  f"a result of type {returns.show()}")
                )
        for o in self.ensures:
            j.judged.add(o.id)
            reads = o in self.reading
            if reads and value is NOT_CONFORMING:
                j.failures.append(
                    self._failure(o, call, args, came_back,
                                  f"a result of type {returns.show()}, and then "
                                  f"`{to_source(o.expr)}`")
                )
                continue
            env = dict(args)
            if reads and not isinstance(returns, TNone):
                env["result"] = value
            h = self.evaluator.holds(o.expr, env)
            if h is True:
                continue
            why = "undefined" if isinstance(h, _Undefined) else "false"
            j.failures.append(
                self._failure(o, call, args, came_back,
                              f"`{to_source(o.expr)}` (it is {why} here)")
            )
        return j

    def raised_is(self, outcome: Outcome, exception: str) -> bool:
        """Whether ``outcome`` raised the contract's ``exception`` (``Raised.is_a``, with
        the spec's ``bind`` of that name)."""
        raised = outcome.raised
        return raised is not None and raised.is_a(exception, self.binds.get(exception))

    def _failure(
        self,
        o: AnyObligation,
        call: str,
        args: Mapping[str, object],
        came_back: str,
        required: str,
    ) -> Failure:
        return Failure(o.id, o.kind, o.text, o.file, o.line, call, came_back, required,
                       dict(args))

    # ------------------------------------------------------------------ examples

    def example_call(self, o: Obligation) -> tuple[dict[str, object], Expr | None]:
        """The arguments of an example's call (evaluated) and its expected-value node."""
        call, expected = example_parts(o)
        values = [self.evaluator.eval(a) for a in call.args]
        names = [n for n, _, _ in self.signature.params]
        return dict(zip(names, values, strict=False)), expected

    def judge_example(self, o: Obligation, outcome: Outcome) -> Failure | None:
        """An ``example``: the call's outcome equals the value, or raises the exception."""
        args, expected = self.example_call(o)
        call = describe_input(self.func, args)
        came_back = describe_outcome(outcome)
        if o.exception is not None:
            if self.raised_is(outcome, o.exception):
                return None
            return self._failure(o, call, args, came_back, f"raise {o.exception}")
        assert expected is not None
        want = self.evaluator.eval(expected)
        if outcome.raised is not None:
            return self._failure(o, call, args, came_back, f"return {describe(want)}")
        value = normalize(outcome.value, self.signature.returns)
        if value is NOT_CONFORMING:
            return self._failure(
                o, call, args, came_back,
                f"return {describe(want)} (a value of type {self.signature.returns.show()})",
            )
        if self.comparer.eq(value, want) is True:
            return None
        return self._failure(o, call, args, came_back, f"return {describe(want)}")


def example_parts(o: Obligation) -> tuple[Call, Expr | None]:
    """The call of an example and the node of its expected value (None for raises)."""
    e = o.expr
    if isinstance(e, Call):
        return e, None
    if isinstance(e, Compare) and len(e.operands) == 2:
        left, right = e.operands
        if isinstance(left, Call):
            return left, right
        if isinstance(right, Call):
            return right, left
    raise ValueError(f"example {o.id} is not `CALL == VALUE` or `CALL raises E`")


def make_evaluator(info: TypeInfo) -> Evaluator:
    """An evaluator with the contract's constants and tolerance."""
    tol = info.contract.tolerance
    rel = float(tol) if tol else 1e-9
    return Evaluator(info.const_values, rel_tol=rel)


def _decl_position(info: TypeInfo, owner: str) -> tuple[str, int]:
    for d in info.contract.declarations:
        if d.name == owner:
            return d.file, d.line
        ops = getattr(d, "operations", ())
        for op in ops:
            if f"{d.name}.{op.name}" == owner:
                return op.file, op.line
    return "", 0


