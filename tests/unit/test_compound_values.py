"""Values of tuples, optionals and dicts (docs/language.md §6.5-6.7, §13.6): the evaluator's
meaning, an implementation's results against their types, the JSON forms and the sandbox
channel, and the printer's round trip."""

from __future__ import annotations

import collections
from fractions import Fraction
from typing import Any

import pytest

from derivative._ast import Expr
from derivative._eval import Evaluator
from derivative._evalops import conforms
from derivative._printer import to_source
from derivative._types import INT, REAL, STR, TDict, TInt, TList, TOptional, TTuple, Ty
from derivative._values import UNDEFINED, DictValue, TupleValue, value_json
from derivative.certificates._jsonvalue import ValueError_, decode, encode, literal
from derivative.forge.inside import _worker
from derivative.forge.sandbox._channel import decode_value, encode_value
from derivative.forge.testing._oracle import NOT_CONFORMING, describe, normalize
from derivative.grammar import parse_text

EV = Evaluator()


def _expr(text: str) -> Expr:
    return parse_text(f"spec t version 1\nrequirement R: {text}\n").obligations[0].expr


def _eval(text: str, **env: Any) -> Any:
    return EV.eval(_expr(text), env)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('{"a": 1, "b": 2, "a": 3} == {"b": 2, "a": 3}', True),
        ('keys({"b": 1, "a": 2, "c": 3})', ("a", "b", "c")),
        ("keys({3: 0, -1: 0, 2: 0})", (-1, 2, 3)),
        ('len({"a": 1, "a": 2})', 1),
        ('{"a": 1}["a"]', 1),
        ('{"a": 1}["b"]', UNDEFINED),
        ('get({"a": 1}, "b")', None),
        ('get({"a": 1}, "b", 7)', 7),
        ('get({"a": none}, "a") == none', True),
        ("value(none)", UNDEFINED),
        ("value(if 1 > 0 then 4 else none)", 4),
        ("(1, 2) == (1.0, 2)", True),
        ("(1, (2, 3))[1][0]", 2),
        ('(1, "a")[-1]', "a"),
        ("len((1, 2, 3))", 3),
        ("[none, 1] == [none, 1]", True),
        ("none == none", True),
        ("{1: 2} != {}", True),
    ],
)
def test_evaluator_meaning(text: str, want: Any) -> None:
    assert _eval(text) == want if want is not UNDEFINED else _eval(text) is UNDEFINED


def test_an_optional_compares_with_its_value_type() -> None:
    e = _expr("o == 3")
    assert EV.eval(e, {"o": 3}) is True
    assert EV.eval(e, {"o": None}) is False
    assert EV.eval(_expr("o != none implies value(o) > 1"), {"o": None}) is True


def test_dict_values_are_canonical() -> None:
    a = DictValue.of([("b", 1), ("a", 2)])
    b = DictValue.of([("a", 2), ("b", 1)])
    assert a == b and hash(a) == hash(b) and a.key_tuple() == ("a", "b")
    assert DictValue.of([(1, "x"), (1, "y")]) == DictValue(((1, "y"),))


# --------------------------------------------------------------------------- results


@pytest.mark.parametrize(
    ("value", "ty", "want"),
    [
        ((1, "a"), TTuple((INT, STR)), TupleValue((1, "a"))),
        ([1, "a"], TTuple((INT, STR)), NOT_CONFORMING),
        ((1,), TTuple((INT, STR)), NOT_CONFORMING),
        ((1, 2), TTuple((INT, STR)), NOT_CONFORMING),
        (None, TOptional(INT), None),
        (3, TOptional(INT), 3),
        ("3", TOptional(INT), NOT_CONFORMING),
        ({"b": 1, "a": 2}, TDict(STR, INT), DictValue((("a", 2), ("b", 1)))),
        (collections.Counter("aab"), TDict(STR, INT), DictValue((("a", 2), ("b", 1)))),
        ({1: 1}, TDict(STR, INT), NOT_CONFORMING),
        ({True: 1}, TDict(INT, INT), NOT_CONFORMING),
        ({5: 1}, TDict(TInt(0, 3), INT), NOT_CONFORMING),
        ([("a", 1)], TDict(STR, INT), NOT_CONFORMING),
        ([(1, None)], TList(TTuple((INT, TOptional(REAL)))), (TupleValue((1, None)),)),
    ],
)
def test_results_are_checked_against_their_type(value: Any, ty: Ty, want: Any) -> None:
    got = normalize(value, ty)
    assert got == want if want is not NOT_CONFORMING else got is NOT_CONFORMING
    if want is not NOT_CONFORMING:
        assert conforms(got, ty)


def test_values_are_described_as_the_language_writes_them() -> None:
    assert describe(TupleValue((1,))) == "(1,)"
    assert describe(DictValue.of([("a", None)])) == '{"a": none}'


# --------------------------------------------------------------------------- JSON


@pytest.mark.parametrize(
    ("value", "ty", "data"),
    [
        (TupleValue((1, "a")), TTuple((INT, STR)), [1, "a"]),
        (None, TOptional(INT), None),
        (4, TOptional(INT), 4),
        (DictValue.of([("b", 1), ("a", 2)]), TDict(STR, INT), {"a": 2, "b": 1}),
        (DictValue.of([(2, "x"), (1, "y")]), TDict(INT, STR), [[1, "y"], [2, "x"]]),
        (DictValue(()), TDict(INT, STR), {}),
        (DictValue.of([(1, Fraction(1, 3))]), TDict(INT, REAL), [[1, "1/3"]]),
    ],
)
def test_json_forms_round_trip(value: Any, ty: Ty, data: Any) -> None:
    assert encode(value, ty) == data
    assert decode(data, ty) == value
    assert value_json(value) == data
    assert EV.eval(literal(value, ty), {}) == value
    assert to_source(literal(value, ty))


@pytest.mark.parametrize(
    ("data", "ty"),
    [
        ([1], TTuple((INT, STR))),
        ({"a": 1}, TTuple((INT, STR))),
        ([["a", 1]], TDict(STR, INT)),
        ({"1": 1}, TDict(INT, INT)),
        ([[1, 1], [1, 2]], TDict(INT, INT)),
        ([[1]], TDict(INT, INT)),
    ],
)
def test_json_that_is_not_a_value_is_refused(data: Any, ty: Ty) -> None:
    with pytest.raises(ValueError_):
        decode(data, ty)


# --------------------------------------------------------------------------- the channel


def test_tuples_and_dicts_cross_the_sandbox_channel() -> None:
    sent = encode_value((TupleValue((1, None)), DictValue.of([("a", TupleValue((2,)))])))
    assert sent == [{"$tuple": [1, None]}, {"$dict": [["a", {"$tuple": [2]}]]}]
    arrived = _worker.decode(sent, None)  # type: ignore[arg-type]  # no enum inside
    assert arrived == [(1, None), {"a": (2,)}]
    back = decode_value(_worker.encode(collections.Counter({"x": 2})))
    assert back == {"x": 2} and type(back) is dict


def test_a_dict_subclass_is_read_through_dicts_own_items() -> None:
    class Sly(dict[str, int]):
        def items(self) -> Any:  # type: ignore[override]
            return [("forged", 1)]

    assert _worker.encode(Sly(a=1)) == {"$dict": [["a", 1]]}


# --------------------------------------------------------------------------- printer


@pytest.mark.parametrize(
    "text",
    ["(1,) == (1,)", "(1, (2, 3)) != (1, (2, 4))", "none == none", '{} == {"a": 1, "b": 2}',
     "get({1: (2,)}, 1) == none", "value(get({1: 2}, 1)) == 2", "[(1, none)] == []"],
)
def test_printer_round_trip(text: str) -> None:
    e = _expr(text)
    assert to_source(e) == text
    assert _expr(to_source(e)).json_data() == e.json_data()
