"""Slices, list comprehensions, ``count(P for x in xs)``, ``product`` and ``reversed``.

What the grammar builds (``count`` is parsed as ``len([x for x in xs if P])``; a slice has
no step), what the type checker refuses, and the evaluator's answers at the edges that
Python decides (negative and far bounds, ``product([])``, a comprehension's undefined
parts).  The readings are held to each other by
``tests/property/test_list_builtins_differential.py``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from derivative import _ast as A
from derivative._errors import SpecError, SpecErrors
from derivative._eval import Evaluator
from derivative._printer import to_source
from derivative._typecheck import check
from derivative._values import UNDEFINED
from derivative.grammar import parse_text

HEADER = "spec s version 1\nparam xs: list[int]\nparam s: str\nparam n: int\n"
EV = Evaluator()


def expr(src: str) -> Any:
    return parse_text(HEADER + f"requirement R: {src}\n").obligations[0].expr


def value(src: str, **env: object) -> object:
    """The value of ``src`` (an expression) with the given names."""
    e = expr(f"{src} == {src}")
    assert isinstance(e, A.Compare)
    return EV.eval(e.operands[0], {"xs": (), "s": "", "n": 0, **env})


# --------------------------------------------------------------------------- grammar


def test_slices_and_comprehensions_parse() -> None:
    e = expr("xs[1:] == xs[:n] + xs[-2:n + 1] + xs[:]")
    assert isinstance(e, A.Compare)
    left, right = e.operands
    assert left.model_dump() == A.Slice(base=A.Name(id="xs"), lo=A.IntLit(value=1)).model_dump()
    assert isinstance(right, A.BinOp)
    whole = right.operands[2]
    assert isinstance(whole, A.Slice) and whole.lo is None and whole.hi is None
    comp = expr("[x * 2 for x in xs if x > 0] == []")
    assert isinstance(comp, A.Compare)
    assert to_source(comp.operands[0]) == "[x * 2 for x in xs if x > 0]"


def test_count_is_the_length_of_a_filter() -> None:
    counted = expr("count(x > 0 for x in xs) == 2").model_dump()
    assert counted == expr("len([x for x in xs if x > 0]) == 2").model_dump()
    assert to_source(expr("count(x > 0 for x in xs) <= n")) == (
        "len([x for x in xs if x > 0]) <= n"
    )


@pytest.mark.parametrize("src", ["xs[::2] == xs", "xs[1:2:1] == xs", "[x for x in xs if x if x]"])
def test_no_step_and_one_condition(src: str) -> None:
    with pytest.raises(SpecError):
        expr(src)


def test_sum_is_not_a_generator() -> None:
    with pytest.raises(SpecError, match=r"all\(\.\.\.\), any\(\.\.\.\) or count\(\.\.\.\)"):
        expr("sum(x for x in xs) == 1")


# --------------------------------------------------------------------------- types


def _errors(src: str) -> list[str]:
    contract = parse_text(HEADER + "param ss: list[str]\n" + f"requirement R: {src}\n")
    try:
        check(contract)
    except SpecErrors as exc:
        return [e.message for e in exc.errors]
    return []


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("xs[1:2] == xs", None),
        ('s[n:] == "a"', None),
        ("[x > 0 for x in xs] == [true]", None),
        ('[s + x for x in ss if len(x) > n] == ss', None),
        ("product(xs) + 1 == 2", None),
        ("reversed(ss) == ss", None),
        ("count(x > 0 for x in xs) == n", None),
        ('xs[1:"a"] == xs', "a slice bound must be an int, not str"),
        ("n[1:] == n", "cannot slice a int"),
        ("xs[1:] == s", "cannot compare list[int] with str"),
        ("[x for x in n] == xs", "needs a list, not int"),
        ("[x for x in xs if x] == xs", "the condition of a list comprehension must be a bool"),
        ("count(x for x in xs) == 1", "must be a bool"),
        ("product(ss) == 1", "product() needs a list of int or real, not list[str]"),
        ('reversed(s) == "a"', "reversed() needs a list, not str"),
    ],
)
def test_types(src: str, message: str | None) -> None:
    errors = _errors(src)
    if message is None:
        assert errors == []
    else:
        assert len(errors) == 1 and message in errors[0], errors


# --------------------------------------------------------------------------- evaluation


def test_slices_follow_python() -> None:
    xs = (1, 2, 3, 4)
    for lo in (None, -9, -2, 0, 1, 3, 4, 9):
        for hi in (None, -9, -1, 0, 2, 4, 9):
            text = f"xs[{'' if lo is None else lo}:{'' if hi is None else hi}]"
            assert value(text, xs=xs) == xs[lo:hi], text
    assert value("s[-2:]", s="abc") == "bc"
    assert value("s[1:10]", s="abc") == "bc"
    assert value("s[2:1]", s="abc") == ""


def test_comprehensions_evaluate_every_condition_and_kept_item() -> None:
    assert value("[x * 2 for x in xs if x > 0]", xs=(3, -1, 0, 5)) == (6, 10)
    assert value("count(x > 0 for x in xs)", xs=(3, -1, 0, 5)) == 2
    # the item is evaluated only where the condition holds ...
    assert value("[12 // x for x in xs if x != 0]", xs=(0, 4)) == (3,)
    # ... the condition at every element: no early stop, unlike all/any
    assert value("[x for x in xs if 12 // x > 0]", xs=(4, 0)) is UNDEFINED
    assert value("count(12 // x > 0 for x in xs)", xs=(4, 0)) is UNDEFINED
    assert value("[xs[x] for x in xs]", xs=(1, 5)) is UNDEFINED
    assert value("[x for x in []]") == ()


def test_product_and_reversed() -> None:
    assert value("product(xs)", xs=()) == 1
    assert value("product(xs)", xs=(2, -3, 4)) == -24
    got = EV.eval(A.Call(func="product", args=(A.Name(id="rs"),)), {"rs": (Fraction(1, 2), 3)})
    assert got == Fraction(3, 2)
    assert EV.eval(A.Call(func="product", args=(A.Name(id="rs"),)), {"rs": (1e300, 1e300)}) is (
        UNDEFINED
    )
    assert value("reversed(xs)", xs=(1, 2, 3)) == (3, 2, 1)
    assert value("reversed(xs)", xs=()) == ()
