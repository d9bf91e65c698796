"""Type checks of tuples, optionals and dicts (docs/language.md §6.5-6.7, §13.5): the forms
that pass with the types they get, and each error with its message and position (``‸``)."""

from __future__ import annotations

import pytest

from derivative._ast import DictLit, NoneLit, TupleLit
from derivative._errors import SpecErrors
from derivative._typecheck import check
from derivative._types import (
    BOOL,
    INT,
    NONE,
    REAL,
    STR,
    TAny,
    TDict,
    TInt,
    TList,
    TOptional,
    TTuple,
    assignable,
    join,
)
from derivative.grammar import parse_text
from tests.unit.test_typecheck import ok, one_error

DECLS = """
param t: tuple[int, str]
param o: optional[int]
param d: dict[str, int]
param e: dict[int in 0..9, real]
param n: int
"""


def _type_of(expr: str) -> object:
    info = ok(DECLS + f"requirement R: {expr} == {expr}\n")
    ob = info.contract.obligations[0]
    return info.type_of(ob.expr.operands[0], info.scope(ob))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("expr", "ty"),
    [
        ("t", TTuple((INT, STR))),
        ("(1, 2.5)", TTuple((INT, REAL))),
        ("(n,)", TTuple((INT,))),
        ("((1, \"a\"), [none])", TTuple((TTuple((INT, STR)), TList(NONE)))),
        ("t[0]", INT),
        ("t[-1]", STR),
        ("len(t)", INT),
        ("none", NONE),
        ("o", TOptional(INT)),
        ("value(o)", INT),
        ("(if n > 0 then none else 3)", TOptional(INT)),
        ("[1, none]", TList(TOptional(INT))),
        ("d", TDict(STR, INT)),
        ("{}", TDict(TAny(), TAny())),
        ("{1: \"a\", 2: \"b\"}", TDict(INT, STR)),
        ("d[\"a\"]", INT),
        ("e[3]", REAL),
        ("get(d, \"a\")", TOptional(INT)),
        ("get(d, \"a\", 0)", INT),
        ("get(e, 1, 0)", REAL),
        ("keys(d)", TList(STR)),
        ("keys(e)", TList(TInt(0, 9))),
        ("len(d)", INT),
        ("(\"a\" in d)", BOOL),
    ],
)
def test_types_of_compound_forms(expr: str, ty: object) -> None:
    assert _type_of(expr) == ty


@pytest.mark.parametrize(
    "cond",
    [
        "t == (n, \"x\")",
        "(1, 2) == (1.0, 2)",
        "o == none and none == o and o != 3 and o == 2.5",
        "get(d, \"a\") == 1",
        "d == {} and {} == d and d == {\"a\": 1}",
        "[(1, \"a\")] == [t]",
        "all(get(d, k, 0) >= 0 for k in keys(d))",
        "n in e and n not in e",
    ],
)
def test_conditions_that_type_check(cond: str) -> None:
    ok(DECLS + f"requirement R: {cond}\n")


def test_compound_parameters_results_and_examples() -> None:
    ok(
        """
        function f(p: tuple[int, optional[str]],
                   m: dict[str, list[int]]) -> optional[tuple[int, int]]
            ensures: result == none or value(result)[0] == p[0]
            example: f((1, none), {"a": [1]}) == (1, 2)
            example: f((1, "x"), {}) == none
        """
    )


def test_join_and_assignable_of_compound_types() -> None:
    assert join(NONE, INT) == TOptional(INT)
    assert join(TOptional(INT), REAL) == TOptional(REAL)
    assert join(TOptional(INT), NONE) == TOptional(INT)
    assert join(TTuple((INT,)), TTuple((INT, INT))) is None
    assert join(TDict(TAny(), TAny()), TDict(STR, INT)) == TDict(STR, INT)
    assert assignable(TOptional(INT), INT) and assignable(TOptional(INT), NONE)
    assert not assignable(INT, TOptional(INT))
    assert not assignable(TTuple((INT, STR)), TList(INT))


@pytest.mark.parametrize(
    ("body", "fragment", "hint"),
    [
        ("param x: ‸tuple\n", "is an unknown type", None),
        ("param x: ‸optional[optional[int]]\n", "is not a type: none is none", "optional[T]"),
        ("param x: ‸dict[real, int]\n", "the keys of a dict must be int or str, not real", None),
        ("param x: ‸dict[tuple[int], int]\n", "must be int or str", None),
        (DECLS + "requirement R: t[‸2] == 1\n", "index 2 is out of range for a tuple[int, str]",
         "items 0..1"),
        (DECLS + "requirement R: t[‸n] == 1\n", "a tuple is indexed by an integer literal",
         "t[0]"),
        (DECLS + "requirement R: ‸o < 3\n", "cannot order optional[int] and int", None),
        (DECLS + "requirement R: ‸o + 1 == 2\n", "cannot combine optional[int] and int", None),
        (DECLS + "requirement R: value(‸n) == 1\n", "value() needs an optional, not int",
         "needs no value()"),
        (DECLS + "requirement R: d[‸1] == 2\n", "a key of a dict[str, int] must be str, not int",
         None),
        (DECLS + "requirement R: get(d, ‸1) == 2\n", "get() looks for a key", None),
        (DECLS + "requirement R: get(d, \"a\", ‸\"z\") == 2\n",
         "the default of get() must be a int, not str", None),
        (DECLS + "requirement R: get(‸t, 1) == 2\n", "get() needs a dict, not tuple[int, str]",
         None),
        (DECLS + "requirement R: keys(‸o) == []\n", "keys() needs a dict", None),
        (DECLS + "requirement R: ‸1 in d\n", "`in` looks for a key of a dict[str, int], not int",
         None),
        (DECLS + "requirement R: {1: 2, ‸\"a\": 3} == {}\n", "dict keys must have one type",
         None),
        (DECLS + "requirement R: {‸1.5: 2} == {}\n", "the keys of a dict must be int or str", None),
        (DECLS + "requirement R: {1: 2, 3: ‸\"x\"} == {}\n", "dict values must have one type",
         None),
        (DECLS + "requirement R: ‸t == (1, 2)\n",
         "cannot compare tuple[int, str] with tuple[int, int]", None),
        (DECLS + "requirement R: ‸o == \"a\"\n", "cannot compare optional[int] with str", None),
        (DECLS + "requirement R: ‸t < t\n", "cannot order", None),
    ],
)
def test_compound_type_errors(body: str, fragment: str, hint: str | None) -> None:
    one_error(body, fragment, hint)


def test_generic_types_take_their_number_of_arguments() -> None:
    for text, message in [
        ("param x: list[int, str]\n", "`list` takes 1 type argument (2 given)"),
        ("param x: dict[str]\n", "`dict` takes 2 type arguments (1 given)"),
        ("param x: optional[int, int]\n", "`optional` takes 1 type argument (2 given)"),
        ("param x: int[str]\n", "only list[T], tuple[T, ...], optional[T] and dict[K, V] do"),
    ]:
        with pytest.raises(Exception, match=r"type argument") as info:
            parse_text("spec t version 1\n" + text)
        assert message in str(info.value), str(info.value)


def test_literal_nodes_from_the_parser() -> None:
    c = parse_text('spec t version 1\nrequirement R: ((1,), none, {"a": 1}) == ((1,), none, {})\n')
    lhs = c.obligations[0].expr.operands[0]  # type: ignore[attr-defined]
    assert isinstance(lhs, TupleLit) and len(lhs.items) == 3
    assert isinstance(lhs.items[0], TupleLit) and len(lhs.items[0].items) == 1
    assert isinstance(lhs.items[1], NoneLit)
    assert isinstance(lhs.items[2], DictLit) and lhs.items[2].keys[0].value == "a"  # type: ignore[attr-defined]


def test_none_is_still_only_an_operation_result_type() -> None:
    with pytest.raises(SpecErrors, match="only an operation's result type"):
        check(parse_text("spec t version 1\nparam x: none\n"))


@pytest.mark.parametrize("shape", ["tuple[{}]", "optional[list[{}]]", "dict[str, {}]"])
def test_compound_types_count_towards_the_depth_limit(shape: str) -> None:
    from derivative._depth import MAX_DEPTH

    inner = "int"
    for _ in range(MAX_DEPTH):  # one more level than allowed (shapes add one or two each)
        inner = shape.format(inner)
    with pytest.raises(Exception, match="nested more than 100 levels deep"):
        parse_text(f"spec t version 1\nparam x: {inner}\n")
    parse_text(f"spec t version 1\nparam x: {shape.format('int')}\n")
