"""The oracle: judging one call of a valid input in the obligations' own words.

Rules under test (``forge/testing/_oracle.py``, docs/language.md): results of the declared type
only (a bool is not an int, a datetime is not a date, enums by member name), a declared
exception or a subclass exactly where a raises condition holds (any of them where
several hold), a normal return where none holds, and undefined evaluation never passes.
"""

from __future__ import annotations

import datetime
import enum
from fractions import Fraction
from typing import Any

import pytest

from derivative._types import TBool, TDate, TEnum, TInt, TList, TNone, TReal, TStr
from derivative._values import EnumValue
from derivative.api import parse_text
from derivative.forge.testing._oracle import (
    NOT_CONFORMING,
    Judge,
    Outcome,
    Raised,
    describe,
    describe_outcome,
    normalize,
)

SPEC = """spec shop version 1
enum Tier { basic, gold }
exception OutOfStock(LookupError)
function price(n: int, tier: Tier) -> int
    requires: 0 <= n <= 100
    raises OutOfStock when n > 90
    raises ValueError when n == 0
    raises LookupError when n == 100
    ensures E1 "never negative": result >= 0
    ensures E2: tier == Tier.gold implies result == n * 9 // 10
    ensures E3: result // (n - 50) == result // (n - 50)
    example X1: price(10, Tier.gold) == 9
    example X2: price(0, Tier.basic) raises ValueError
function label(t: Tier) -> Tier
    ensures: result == t
function ping(x: int) -> bool
"""


@pytest.fixture(scope="module")
def info() -> Any:
    return parse_text(SPEC).types


class Tier(enum.Enum):
    basic = 1
    gold = 2


class Other(enum.Enum):
    basic = 1


def _failed(judgement: Any) -> set[str]:
    return {f.obligation_id for f in judgement.failures}


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize(
    ("value", "ty", "expected"),
    [
        (3, TInt(), 3),
        (True, TInt(), NOT_CONFORMING),
        (3.0, TInt(), NOT_CONFORMING),
        (7, TInt(0, 5), NOT_CONFORMING),
        (True, TBool(), True),
        (1, TBool(), NOT_CONFORMING),
        (2, TReal(), 2),
        (0.5, TReal(), 0.5),
        (Fraction(1, 3), TReal(), Fraction(1, 3)),
        (float("nan"), TReal(), NOT_CONFORMING),
        (False, TReal(), NOT_CONFORMING),
        ("ab", TStr("[a-z]+"), "ab"),
        ("a1", TStr("[a-z]+"), NOT_CONFORMING),
        (datetime.date(2024, 2, 29), TDate(), datetime.date(2024, 2, 29)),
        (datetime.datetime(2024, 2, 29), TDate(), NOT_CONFORMING),
        ([1, 2], TList(TInt()), (1, 2)),
        ((1, True), TList(TInt()), NOT_CONFORMING),
        (Tier.gold, TEnum("Tier", ("basic", "gold")), EnumValue("Tier", "gold")),
        ("basic", TEnum("Tier", ("basic", "gold")), EnumValue("Tier", "basic")),
        (Other.basic, TEnum("Tier", ("basic", "gold")), NOT_CONFORMING),
        ("silver", TEnum("Tier", ("basic", "gold")), NOT_CONFORMING),
        (None, TNone(), None),
        (0, TNone(), NOT_CONFORMING),
    ],
)
def test_results_conform_to_the_declared_type_only(value: Any, ty: Any, expected: Any) -> None:
    got = normalize(value, ty)
    assert got == expected and type(got) is type(expected)


def test_descriptions_read_like_the_language() -> None:
    assert describe(True) == "true"
    assert describe(Fraction(1, 4)) == "0.25"
    assert describe(Fraction(1, 3)) == "1/3"
    assert describe("a\"b") == '"a\\"b"'
    assert describe(datetime.date(2026, 3, 1)) == 'date("2026-03-01")'
    assert describe((1, EnumValue("Tier", "gold"))) == "[1, Tier.gold]"
    assert describe(Tier.gold) == "Tier.gold"
    assert "a Python list" in describe([1])
    assert describe_outcome(Outcome.error(KeyError("k"))) == "raised KeyError(\"'k'\")"


def test_raised_keeps_the_mro_with_where_each_class_comes_from() -> None:
    class Mine(LookupError):
        pass

    r = Raised.of(Mine("gone"))
    assert r.names[:3] == ("Mine", "LookupError", "Exception") and r.is_a("LookupError")
    assert r.modules[:2] == (__name__, "builtins") and r.builtin[:3] == (False, True, True)


# --------------------------------------------------------------------------- judging


def test_a_correct_call_passes_everything(info: Any) -> None:
    j = Judge(info, "price").judge({"n": 20, "tier": EnumValue("Tier", "gold")}, Outcome(value=18))
    assert j.ok and {"E1", "E2"} <= j.judged


def test_a_false_ensures_fails_with_the_obligations_words(info: Any) -> None:
    j = Judge(info, "price").judge({"n": 20, "tier": EnumValue("Tier", "gold")}, Outcome(value=17))
    assert _failed(j) == {"E2"}
    text = j.failures[0].render()
    assert "E2" in text and "price(n=20, tier=Tier.gold)" in text and "returned 17" in text
    assert "tier == Tier.gold implies result == n * 9 // 10" in text and "<string>:10" in text


def test_an_undefined_ensures_is_never_a_pass(info: Any) -> None:
    # E3 divides by n - 50: undefined at n == 50 whatever the result.
    j = Judge(info, "price").judge({"n": 50, "tier": EnumValue("Tier", "basic")}, Outcome(value=50))
    assert "price.ensures" not in _failed(j)
    e3 = [f for f in j.failures if f.obligation_id == "E3"]
    assert e3 and "undefined" in e3[0].required


def test_a_result_of_the_wrong_type_fails_what_reads_it(info: Any) -> None:
    args = {"n": 20, "tier": EnumValue("Tier", "basic")}
    j = Judge(info, "price").judge(args, Outcome(value=True))
    assert _failed(j) == {"E1", "E2", "E3"}


class OutOfStock(LookupError):
    """The candidate's own class for the declared ``OutOfStock`` (this module plays the
    candidate: ``_raised`` says its classes are the candidate's own code)."""


class SoldOut(OutOfStock):
    pass


def _raised(exc: BaseException) -> Raised:
    return Raised.of(exc, own=lambda module: module == __name__)


def test_the_declared_exception_or_a_subclass_where_its_condition_holds(info: Any) -> None:
    judge = Judge(info, "price")
    args = {"n": 95, "tier": EnumValue("Tier", "basic")}
    assert judge.judge(args, Outcome(raised=_raised(OutOfStock()))).ok
    assert judge.judge(args, Outcome(raised=_raised(SoldOut()))).ok
    wrong = judge.judge(args, Outcome(raised=_raised(ValueError())))
    assert _failed(wrong) == {"price.raises.OutOfStock"}
    returned = judge.judge(args, Outcome(value=5))
    assert _failed(returned) == {"price.raises.OutOfStock"}
    assert "raise OutOfStock" in returned.failures[0].required
    # the same class, but not the candidate's own code: a name proves nothing
    stranger = judge.judge(args, Outcome(raised=Raised.of(OutOfStock())))
    assert _failed(stranger) == {"price.raises.OutOfStock"}


def test_where_several_raises_hold_any_of_them_is_right(info: Any) -> None:
    judge = Judge(info, "price")
    args = {"n": 100, "tier": EnumValue("Tier", "basic")}  # OutOfStock and LookupError hold
    assert judge.judge(args, Outcome(raised=_raised(LookupError()))).ok
    assert judge.judge(args, Outcome(raised=_raised(OutOfStock()))).ok
    bad = judge.judge(args, Outcome(raised=_raised(ValueError())))
    assert _failed(bad) == {"price.raises.OutOfStock", "price.raises.LookupError"}


def test_a_builtin_exception_is_the_builtin_class_not_its_name(info: Any) -> None:
    """``raises LookupError``: a candidate's own ``class LookupError(Exception)`` is what a
    caller's ``except LookupError`` does not catch, so it fails, and is described so."""
    lookalike = type("LookupError", (Exception,), {"__module__": "builtins"})
    judge = Judge(info, "price")
    args = {"n": 100, "tier": EnumValue("Tier", "basic")}
    raised = _raised(lookalike("gone"))
    assert raised.names[0] == "LookupError" and not raised.is_a("LookupError")
    j = judge.judge(args, Outcome(raised=raised))
    assert _failed(j) == {"price.raises.OutOfStock", "price.raises.LookupError"}
    assert j.failures[0].came_back == (
        "raised LookupError('gone') (defined in module 'builtins', not the built-in)")
    own = type("LookupError", (Exception,), {"__module__": __name__})
    assert describe_outcome(Outcome(raised=_raised(own()))) == (
        f"raised LookupError (defined in candidate module {__name__!r}, not the built-in)")


def test_a_metaclass_cannot_answer_for_the_class() -> None:
    """``__mro__`` and ``__name__`` come from ``type``'s own descriptors; a metaclass whose
    ``mro()`` really puts the built-in into the MRO makes a class that ``except`` catches,
    so that one is a ValueError."""

    class Disguise(type):
        __mro__ = property(lambda cls: (cls, ValueError, Exception, BaseException, object))
        __name__ = property(lambda cls: "ValueError")  # type: ignore[assignment]

    class Fake(Exception, metaclass=Disguise):
        pass

    raised = _raised(Fake())
    assert raised.names == ("Fake", "Exception", "BaseException", "object")
    assert not raised.is_a("ValueError")

    class Claims(type):
        def mro(cls) -> list[type]:
            return [cls, ValueError, Exception, BaseException, object]

    class Real(Exception, metaclass=Claims):
        pass

    assert issubclass(Real, ValueError) and _raised(Real()).is_a("ValueError")


def test_a_name_that_equals_anything_is_read_as_its_text() -> None:
    """``cls.__name__`` may be set to a ``str`` subclass whose ``__eq__`` says yes to every
    name; the oracle compares the plain text."""

    class Sneaky(str):
        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return hash(str.__str__(self))

    class Renamed(Exception):
        pass

    Renamed.__name__ = Sneaky("Renamed")
    raised = _raised(Renamed())
    assert type(raised.names[0]) is str and raised.names[0] == "Renamed"
    assert not raised.is_a("OutOfStock") and raised.is_a("Renamed")


def test_a_bound_exception_is_the_class_where_the_bind_points() -> None:
    import statistics

    error = statistics.StatisticsError("x")
    assert not _raised(error).is_a("StatisticsError")
    assert _raised(error).is_a("StatisticsError", "statistics:StatisticsError")
    assert not _raised(error).is_a("StatisticsError", "fractions:StatisticsError")
    # a Raised without the facts (a sandbox failure) matches nothing
    assert not Raised(("ValueError", "Exception")).is_a("ValueError")


def test_raising_where_no_condition_holds_fails(info: Any) -> None:
    judge = Judge(info, "price")
    j = judge.judge({"n": 20, "tier": EnumValue("Tier", "basic")},
                    Outcome(raised=_raised(ValueError("no"))))
    assert {"E1", "E2", "E3", "price.raises.OutOfStock", "price.raises.ValueError"} <= _failed(j)
    assert "a normal return" in j.failures[0].required


def test_enum_results_by_member_or_name(info: Any) -> None:
    judge = Judge(info, "label")
    gold = {"t": EnumValue("Tier", "gold")}
    assert judge.judge(gold, Outcome(value=Tier.gold)).ok
    assert judge.judge(gold, Outcome(value="gold")).ok
    assert not judge.judge(gold, Outcome(value=Other.basic)).ok
    assert not judge.judge(gold, Outcome(value="basic")).ok


def test_a_function_without_ensures_still_checks_its_result(info: Any) -> None:
    judge = Judge(info, "ping")
    assert judge.synthetic is not None and judge.synthetic.id == "ping.returns"
    assert judge.judge({"x": 1}, Outcome(value=False)).ok
    assert _failed(judge.judge({"x": 1}, Outcome(value=0))) == {"ping.returns"}
    assert _failed(judge.judge({"x": 1}, Outcome(raised=Raised(("KeyError",))))) == {"ping.returns"}


def test_validity(info: Any) -> None:
    judge = Judge(info, "price")
    assert judge.admits({"n": 5, "tier": EnumValue("Tier", "gold")})
    assert not judge.admits({"n": 101, "tier": EnumValue("Tier", "gold")})
    assert not judge.admits({"n": True, "tier": EnumValue("Tier", "gold")})
    assert not judge.admits({"n": 5})


def test_examples(info: Any) -> None:
    judge = Judge(info, "price")
    x1, x2 = judge.examples
    assert judge.judge_example(x1, Outcome(value=9)) is None
    assert judge.judge_example(x1, Outcome(value=9.0)) is not None  # a float is not an int
    assert judge.judge_example(x1, Outcome(value=10)) is not None
    assert judge.judge_example(x2, Outcome(raised=_raised(ValueError()))) is None
    lookalike = type("ValueError", (Exception,), {})
    assert judge.judge_example(x2, Outcome(raised=_raised(lookalike()))) is not None
    failure = judge.judge_example(x2, Outcome(value=0))
    assert failure is not None and failure.required == "raise ValueError"
