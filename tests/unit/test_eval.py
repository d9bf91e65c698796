"""Unit tests of the evaluator: every rule of docs/language.md and every decision in
``derivative/_eval.py``'s docstring, one behaviour per test.

Trees are built directly (not parsed) so that these tests pin the evaluator's meaning
independently of the parser.  ``BOOM`` is an unbound name: evaluating it raises
``EvaluationError``, so a test that contains it and passes proves the operand was never
evaluated (not merely that its value did not matter).
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Mapping
from datetime import date, datetime
from fractions import Fraction

import pytest

from derivative._ast import (
    BinOp,
    BoolLit,
    BoolOp,
    Call,
    Compare,
    Count,
    DateLit,
    EnumMember,
    Expr,
    Generator,
    IfExpr,
    Index,
    IntLit,
    ListLit,
    Name,
    Quantifier,
    Range,
    RealLit,
    Result,
    StrLit,
    Unary,
)
from derivative._errors import DerivativeError
from derivative._eval import (
    EvaluationError,
    EvaluationLimitError,
    Evaluator,
    evaluate,
)
from derivative._values import UNDEFINED, EnumValue

# --------------------------------------------------------------------------- builders


def i(v: int) -> Expr:
    """An integer literal; negatives as the parser writes them (unary minus)."""
    return IntLit(value=v) if v >= 0 else Unary(op="-", operand=IntLit(value=-v))


def r(text: str) -> Expr:
    return RealLit(value=text)


def s(v: str) -> Expr:
    return StrLit(value=v)


def d(text: str) -> Expr:
    return DateLit(value=text)


def n(name: str) -> Expr:
    return Name(id=name)


def em(enum_name: str, member: str) -> Expr:
    return EnumMember(enum=enum_name, member=member)


def lst(*items: Expr) -> Expr:
    return ListLit(items=items)


TRUE: Expr = BoolLit(value=True)
FALSE: Expr = BoolLit(value=False)
BOOM: Expr = Name(id="__never_bound__")


def op(left: Expr, o: str, right: Expr) -> Expr:
    return BinOp(op=o, operands=(left, right))


def neg(x: Expr) -> Expr:
    return Unary(op="-", operand=x)


def not_(x: Expr) -> Expr:
    return Unary(op="not", operand=x)


def bop(left: Expr, o: str, right: Expr) -> Expr:
    return BoolOp(op=o, operands=(left, right))


def cmp(first: Expr, *rest: str | Expr) -> Expr:
    """``cmp(a, "<", b, "<=", c)`` is the chain ``a < b <= c``."""
    ops = rest[0::2]
    operands = (first, *rest[1::2])
    return Compare(ops=ops, operands=operands)


def rng(lo: Expr, hi: Expr) -> Expr:
    return Range(lo=lo, hi=hi)


def call(func: str, *args: Expr) -> Expr:
    return Call(func=func, args=args)


def idx(base: Expr, index: Expr) -> Expr:
    return Index(base=base, index=index)


def if_(c: Expr, then: Expr, orelse: Expr) -> Expr:
    return IfExpr(cond=c, then=then, orelse=orelse)


def quant(kind: str, var: str, lo: Expr, hi: Expr, body: Expr) -> Expr:
    return Quantifier(quantifier=kind, var=var, lo=lo, hi=hi, body=body)


def gen(func: str, var: str, xs: Expr, body: Expr) -> Expr:
    return Generator(func=func, body=body, var=var, iterable=xs)


DIV0: Expr = op(i(1), "//", i(0))
UNDEF: Expr = cmp(DIV0, "==", i(0))  # ``1 // 0 == 0``

E = Evaluator()


def ev(expr: Expr, **env: object) -> object:
    return E.eval(expr, env)


def same(got: object, want: object) -> bool:
    """Equal and of the same Python type (so ``1`` is not ``True`` nor ``Fraction(1)``)."""
    if isinstance(got, tuple) and isinstance(want, tuple):
        return len(got) == len(want) and all(map(same, got, want))
    return type(got) is type(want) and got == want


# --------------------------------------------------------------------------- literals


def test_literals_evaluate_to_the_runtime_representation() -> None:
    assert same(ev(i(5)), 5)
    assert same(ev(i(-5)), -5)
    assert same(ev(r("0.25")), Fraction(1, 4))
    assert same(ev(s("a\nb")), "a\nb")
    assert same(ev(TRUE), True)
    assert same(ev(d("2024-02-29")), date(2024, 2, 29))
    assert same(ev(lst(i(1), i(2))), (1, 2))
    assert same(ev(lst()), ())
    assert same(ev(em("Outcome", "ok")), EnumValue("Outcome", "ok"))


@pytest.mark.parametrize("text", ["1e5", "1e999999999", "0x10", "", "1.", ".5", "1/0"])
def test_malformed_real_literal_is_a_caller_error(text: str) -> None:
    with pytest.raises(EvaluationError, match="real literal"):
        ev(r(text))


@pytest.mark.parametrize("text", ["2023-02-29", "20240101", "2024-1-1", "x"])
def test_malformed_date_literal_is_a_caller_error(text: str) -> None:
    with pytest.raises(EvaluationError, match="date literal"):
        ev(d(text))


# --------------------------------------------------------------------------- arithmetic


def test_true_division_is_exact_and_real_even_for_two_ints() -> None:
    assert same(ev(op(i(7), "/", i(2))), Fraction(7, 2))
    assert same(ev(op(i(4), "/", i(2))), Fraction(2))
    assert same(ev(op(r("0.1"), "/", i(3))), Fraction(1, 30))


@pytest.mark.parametrize(("a", "b"), [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (0, -5)])
def test_floor_division_and_modulo_follow_python_for_negative_ints(a: int, b: int) -> None:
    assert same(ev(op(i(a), "//", i(b))), a // b)
    assert same(ev(op(i(a), "%", i(b))), a % b)
    # the law Python guarantees: a == (a // b) * b + a % b
    law = cmp(i(a), "==", op(op(op(i(a), "//", i(b)), "*", i(b)), "+", op(i(a), "%", i(b))))
    assert ev(law) is True


def test_floor_division_and_modulo_of_reals_floor_and_give_reals() -> None:
    assert same(ev(op(r("3.5"), "//", i(1))), Fraction(3))
    assert same(ev(op(neg(r("3.5")), "//", i(1))), Fraction(-4))
    assert same(ev(op(neg(r("3.5")), "%", i(2))), Fraction(1, 2))
    assert same(ev(op(r("3.5"), "%", neg(i(2)))), Fraction(-1, 2))


@pytest.mark.parametrize("o", ["/", "//", "%"])
@pytest.mark.parametrize("zero", [i(0), r("0.0"), neg(i(0))])
def test_division_by_zero_is_undefined(o: str, zero: Expr) -> None:
    assert ev(op(i(1), o, zero)) is UNDEFINED
    assert ev(op(r("1.5"), o, zero)) is UNDEFINED
    assert ev(op(n("x"), o, zero), x=1.5) is UNDEFINED  # a float from a candidate


def test_int_arithmetic_stays_int_and_mixing_with_real_gives_real() -> None:
    assert same(ev(op(i(2), "*", neg(i(3)))), -6)
    assert same(ev(op(i(2), "+", r("0.5"))), Fraction(5, 2))
    assert same(ev(op(i(10**30), "*", i(10**30))), 10**60)
    assert same(ev(neg(r("0.5"))), Fraction(-1, 2))
    assert same(ev(call("abs", i(-3))), 3)
    assert same(ev(call("abs", neg(r("0.5")))), Fraction(1, 2))


def test_there_is_no_string_or_list_repetition() -> None:
    assert ev(op(s("ab"), "*", i(3))) is UNDEFINED
    assert ev(op(lst(i(1)), "*", i(3))) is UNDEFINED
    assert ev(op(s("a"), "+", i(1))) is UNDEFINED
    assert ev(op(s("a"), "-", s("a"))) is UNDEFINED


# --------------------------------------------------------------------------- undefinedness


def test_language_md_examples() -> None:
    # docs/language.md: `false and 1 // 0 == 0` is false, `1 // 0 == 0 and false` undefined.
    assert ev(bop(FALSE, "and", UNDEF)) is False
    assert ev(bop(UNDEF, "and", FALSE)) is UNDEFINED


def test_short_circuit_does_not_even_evaluate_the_right_operand() -> None:
    assert ev(bop(FALSE, "and", BOOM)) is False
    assert ev(bop(TRUE, "or", BOOM)) is True
    assert ev(bop(FALSE, "implies", BOOM)) is True
    with pytest.raises(EvaluationError, match="__never_bound__"):
        ev(bop(TRUE, "and", BOOM))


@pytest.mark.parametrize(
    ("o", "left", "right", "want"),
    [
        ("and", TRUE, TRUE, True),
        ("and", TRUE, FALSE, False),
        ("and", TRUE, UNDEF, UNDEFINED),
        ("and", UNDEF, TRUE, UNDEFINED),
        ("or", FALSE, FALSE, False),
        ("or", FALSE, TRUE, True),
        ("or", TRUE, UNDEF, True),
        ("or", FALSE, UNDEF, UNDEFINED),
        ("or", UNDEF, TRUE, UNDEFINED),
        ("implies", TRUE, FALSE, False),
        ("implies", TRUE, TRUE, True),
        ("implies", FALSE, FALSE, True),
        ("implies", FALSE, UNDEF, True),
        ("implies", TRUE, UNDEF, UNDEFINED),
        ("implies", UNDEF, TRUE, UNDEFINED),
        ("iff", TRUE, TRUE, True),
        ("iff", FALSE, FALSE, True),
        ("iff", TRUE, FALSE, False),
        ("iff", FALSE, UNDEF, UNDEFINED),  # iff evaluates both sides
        ("iff", UNDEF, FALSE, UNDEFINED),
    ],
)
def test_boolean_operators_truth_table_with_undefined(
    o: str, left: Expr, right: Expr, want: object
) -> None:
    assert ev(bop(left, o, right)) is want


def test_implies_is_right_associative_as_built() -> None:
    # a implies (b implies c) with a=true, b=false: true, c never evaluated
    assert ev(bop(TRUE, "implies", bop(FALSE, "implies", BOOM))) is True


def test_boolean_operators_reject_non_bools() -> None:
    assert ev(bop(n("x"), "and", TRUE), x=1) is UNDEFINED
    assert ev(bop(TRUE, "and", n("x")), x=1) is UNDEFINED
    assert ev(bop(FALSE, "or", n("x")), x="yes") is UNDEFINED
    assert ev(not_(n("x")), x=0) is UNDEFINED
    assert ev(not_(FALSE)) is True


def test_if_evaluates_the_condition_and_only_the_chosen_branch() -> None:
    assert same(ev(if_(TRUE, i(1), BOOM)), 1)
    assert same(ev(if_(FALSE, BOOM, i(2))), 2)
    assert same(ev(if_(FALSE, DIV0, i(2))), 2)
    assert ev(if_(UNDEF, i(1), i(2))) is UNDEFINED
    assert ev(if_(n("c"), i(1), i(2)), c=1) is UNDEFINED  # a non-bool condition
    assert ev(if_(TRUE, DIV0, i(2))) is UNDEFINED


def test_operands_are_evaluated_left_to_right_and_stop_at_the_first_undefined() -> None:
    assert ev(op(DIV0, "+", BOOM)) is UNDEFINED
    assert ev(call("max", i(1), DIV0, BOOM)) is UNDEFINED
    assert ev(lst(i(1), DIV0, BOOM)) is UNDEFINED
    assert ev(idx(DIV0, BOOM)) is UNDEFINED
    with pytest.raises(EvaluationError):
        ev(op(i(1), "+", BOOM))


# --------------------------------------------------------------------------- comparisons


def test_comparison_chains_mean_what_python_means() -> None:
    assert ev(cmp(i(1), "<", i(2), "<", i(3))) is True
    assert ev(cmp(i(1), "<", i(3), "<", i(2))) is False
    assert ev(cmp(i(0), "<=", i(0), "<", i(1), "!=", i(2))) is True
    assert ev(cmp(i(1), "==", i(1), ">=", i(2))) is False


def test_a_chain_stops_at_the_first_false_link() -> None:
    assert ev(cmp(i(3), "<", i(2), "<", BOOM)) is False
    assert ev(cmp(i(3), "<", i(2), "<", DIV0)) is False
    assert ev(cmp(i(1), "<", i(2), "<", DIV0)) is UNDEFINED
    assert ev(cmp(DIV0, "<", i(2), "<", i(1))) is UNDEFINED


def test_each_middle_operand_is_evaluated_once() -> None:
    calls: list[Count] = []

    def hook(node: Count) -> int:
        calls.append(node)
        return 2

    ev1 = Evaluator(count_hook=hook)
    chain = cmp(i(0), "<", Count(op="reset"), "<", i(5))
    assert ev1.eval(chain, {}) is True
    assert len(calls) == 1


def test_mixed_int_and_real_compare_by_value() -> None:
    assert ev(cmp(i(1), "==", r("1.0"))) is True
    assert ev(cmp(op(i(1), "/", i(3)), "<", r("0.34"))) is True


def test_strings_compare_by_code_point() -> None:
    assert ev(cmp(s("Z"), "<", s("a"))) is True
    assert ev(cmp(s("ab"), "<", s("b"))) is True
    assert ev(cmp(s("a"), "<", s("ab"))) is True
    assert ev(cmp(s("é"), ">", s("z"))) is True
    assert ev(cmp(s(""), "<", s("\x00"))) is True


def test_lists_compare_by_equality_and_lexicographically() -> None:
    assert ev(cmp(lst(i(1), i(2)), "==", lst(i(1), i(2)))) is True
    assert ev(cmp(lst(i(1), i(2)), "!=", lst(i(1)))) is True
    assert ev(cmp(lst(i(1), i(2)), "<", lst(i(1), i(3)))) is True
    assert ev(cmp(lst(i(1)), "<", lst(i(1), i(0)))) is True
    assert ev(cmp(lst(), "==", lst())) is True
    assert ev(cmp(lst(), "<", lst(s("a")))) is True


def test_bools_and_enums_have_equality_but_no_order() -> None:
    assert ev(cmp(TRUE, "==", TRUE)) is True
    assert ev(cmp(TRUE, "!=", FALSE)) is True
    assert ev(cmp(FALSE, "<", TRUE)) is UNDEFINED
    assert ev(cmp(em("E", "a"), "<", em("E", "b"))) is UNDEFINED
    assert ev(call("max", TRUE, FALSE)) is UNDEFINED
    assert ev(call("sorted", lst(TRUE, FALSE))) is UNDEFINED


def test_comparing_different_sorts_is_undefined_not_false() -> None:
    # a candidate's wrong-typed result must not make `result != 1` pass
    assert ev(cmp(n("x"), "==", i(1)), x=True) is UNDEFINED
    assert ev(cmp(n("x"), "!=", i(1)), x=True) is UNDEFINED
    assert ev(cmp(n("x"), "==", s("1")), x=1) is UNDEFINED
    assert ev(cmp(lst(i(1)), "==", lst(s("1")))) is UNDEFINED
    assert ev(cmp(lst(i(1)), "==", lst(TRUE, FALSE))) is UNDEFINED  # even of different length
    assert ev(cmp(n("x"), "<", i(1)), x="0") is UNDEFINED


# --------------------------------------------------------------------------- membership


def test_range_membership_is_inclusive_and_integral() -> None:
    for v, want in [(0, False), (1, True), (3, True), (5, True), (6, False), (-1, False)]:
        assert ev(cmp(i(v), "in", rng(i(1), i(5)))) is want
        assert ev(cmp(i(v), "not in", rng(i(1), i(5)))) is (not want)
    assert ev(cmp(i(3), "in", rng(i(5), i(1)))) is False  # empty range
    assert ev(cmp(n("x"), "in", rng(i(1), i(5))), x=Fraction(2)) is True
    assert ev(cmp(n("x"), "in", rng(i(1), i(5))), x=Fraction(5, 2)) is False
    assert ev(cmp(n("x"), "in", rng(i(1), i(5))), x=2.0000000000001) is True  # float slack
    assert ev(cmp(n("x"), "in", rng(i(1), i(5))), x=2.5) is False
    assert ev(cmp(n("x"), "in", rng(i(1), i(5))), x=True) is UNDEFINED


def test_range_bounds_are_evaluated_in_order_and_must_be_ints() -> None:
    assert ev(cmp(i(1), "in", rng(DIV0, BOOM))) is UNDEFINED
    assert ev(cmp(i(1), "in", rng(i(0), DIV0))) is UNDEFINED
    assert ev(cmp(i(1), "in", rng(i(0), r("1.5")))) is UNDEFINED
    # in a chain: `0 <= x in 1..5`
    assert ev(cmp(i(0), "<=", n("x"), "in", rng(i(1), i(5))), x=3) is True
    assert ev(cmp(i(9), "<=", n("x"), "in", rng(BOOM, BOOM)), x=3) is False


def test_a_range_anywhere_else_is_a_caller_error() -> None:
    with pytest.raises(EvaluationError, match="range"):
        ev(rng(i(1), i(2)))
    with pytest.raises(EvaluationError, match="range"):
        ev(cmp(rng(i(1), i(2)), "==", i(1)))


def test_range_as_left_operand_of_a_later_link_is_undefined() -> None:
    assert ev(cmp(i(1), "in", rng(i(0), i(2)), "==", i(1))) is UNDEFINED


def test_list_and_string_membership() -> None:
    assert ev(cmp(i(2), "in", lst(i(1), i(2)))) is True
    assert ev(cmp(i(3), "not in", lst(i(1), i(2)))) is True
    assert ev(cmp(i(3), "in", lst())) is False
    assert ev(cmp(s("bc"), "in", s("abcd"))) is True
    assert ev(cmp(s(""), "in", s(""))) is True
    assert ev(cmp(s("x"), "not in", s("abc"))) is True
    assert ev(cmp(i(1), "in", s("123"))) is UNDEFINED
    assert ev(cmp(s("1"), "in", lst(i(1)))) is UNDEFINED
    assert ev(cmp(lst(i(1)), "in", lst(lst(i(1)), lst()))) is True


# --------------------------------------------------------------------------- strings


def test_string_operations() -> None:
    assert same(ev(op(s("ab"), "+", s("cd"))), "abcd")
    assert same(ev(call("len", s("héllo"))), 5)
    assert same(ev(call("len", s("\U0001f600"))), 1)  # code points, not UTF-16 units
    assert same(ev(idx(s("abc"), i(0))), "a")
    assert same(ev(idx(s("abc"), i(2))), "c")
    assert ev(call("startswith", s("abc"), s("ab"))) is True
    assert ev(call("endswith", s("abc"), s("bc"))) is True
    assert ev(call("endswith", s("abc"), s("x"))) is False
    assert ev(call("contains", s("abc"), s("b"))) is True
    assert ev(call("contains", s("b"), s("abc"))) is False
    assert ev(call("startswith", s("abc"), i(1))) is UNDEFINED


@pytest.mark.parametrize("k", [-1, -3, 3, 10**20])
def test_string_index_out_of_range_or_negative_is_undefined(k: int) -> None:
    assert ev(idx(s("abc"), i(k))) is UNDEFINED
    assert ev(idx(lst(i(1), i(2), i(3)), i(k))) is UNDEFINED


def test_index_must_be_an_int() -> None:
    assert ev(idx(s("abc"), n("k")), k=True) is UNDEFINED
    assert ev(idx(s("abc"), r("1.0"))) is UNDEFINED
    assert ev(idx(i(123), i(0))) is UNDEFINED


@pytest.mark.parametrize(
    ("text", "want"),
    [("0", 0), ("5", 5), ("007", 7), ("1234567890123456789012", 1234567890123456789012)],
)
def test_int_of_digit_strings(text: str, want: int) -> None:
    assert same(ev(call("int", s(text))), want)


@pytest.mark.parametrize(
    "text",
    ["", " 5", "5 ", "+5", "-5", "1_0", "\u0663", "\uff15", "5\n", "0x5", "1.0", "¹", "1e3"],
)
def test_int_is_undefined_outside_ascii_digits_where_python_would_accept(text: str) -> None:
    assert ev(call("int", s(text))) is UNDEFINED


def test_int_and_str_of_huge_numbers_ignore_pythons_digit_limit() -> None:
    digits = "1" * 6000
    assert same(ev(call("int", s(digits))), int(digits[:3000]) * 10**3000 + int(digits[3000:]))
    big = 10**5000 + 7
    text = ev(call("str", n("x")), x=big)
    assert isinstance(text, str) and len(text) == 5001 and text.endswith("007")
    assert same(ev(call("str", n("x")), x=-big), "-" + text)


def test_str_of_ints_only() -> None:
    assert same(ev(call("str", i(-5))), "-5")
    assert same(ev(call("str", i(0))), "0")
    assert ev(call("str", TRUE)) is UNDEFINED
    assert ev(call("str", r("0.5"))) is UNDEFINED
    assert ev(call("str", s("a"))) is UNDEFINED


def test_matches_is_a_full_match_of_the_spec_regex() -> None:
    assert ev(call("matches", s("abc"), s("[a-c]+"))) is True
    assert ev(call("matches", s("abcd"), s("[a-c]+"))) is False
    assert ev(call("matches", s("xabc"), s("[a-c]+"))) is False
    assert ev(call("matches", s("\u0663"), s(r"\d"))) is False  # \d is ASCII
    assert ev(call("matches", s("5\n"), s("[0-9]+"))) is False  # no `$`-before-newline
    assert ev(call("matches", i(5), s("[0-9]+"))) is UNDEFINED
    # a computed pattern outside the regex subset is outside the domain of matches
    assert ev(call("matches", s("a"), op(s("(?=a)"), "+", s("a")))) is UNDEFINED


# --------------------------------------------------------------------------- lists


def test_list_operations() -> None:
    xs = lst(i(3), i(1), i(2))
    assert same(ev(op(xs, "+", lst(i(9)))), (3, 1, 2, 9))
    assert same(ev(op(lst(), "+", lst(s("a")))), ("a",))
    assert same(ev(call("len", xs)), 3)
    assert same(ev(idx(xs, i(1))), 1)
    assert same(ev(call("sum", xs)), 6)
    assert same(ev(call("sum", lst())), 0)
    assert same(ev(call("sum", lst(r("0.5"), i(1)))), Fraction(3, 2))
    assert same(ev(call("min", xs)), 1)
    assert same(ev(call("max", xs)), 3)
    assert same(ev(call("sorted", xs)), (1, 2, 3))
    assert same(ev(call("sorted", lst(s("b"), s("B"), s("a")))), ("B", "a", "b"))
    assert same(ev(call("occurrences", lst(i(1), i(2), i(1)), i(1))), 2)
    assert same(ev(call("occurrences", lst(), i(1))), 0)


def test_min_max_of_an_empty_list_is_undefined() -> None:
    assert ev(call("min", lst())) is UNDEFINED
    assert ev(call("max", n("xs")), xs=()) is UNDEFINED


def test_min_max_of_several_arguments() -> None:
    assert same(ev(call("min", i(3), i(-1), i(2))), -1)
    assert same(ev(call("max", i(3), r("3.5"))), Fraction(7, 2))
    assert same(ev(call("min", s("b"), s("a"))), "a")
    assert same(ev(call("max", d("2024-01-01"), d("2023-12-31"))), date(2024, 1, 1))
    assert same(ev(call("max", lst(i(1)), lst(i(0), i(5)))), (1,))
    assert ev(call("min", i(1), s("a"))) is UNDEFINED
    assert ev(call("min", i(1))) is UNDEFINED  # one argument must be a list


def test_list_builtins_reject_wrong_sorts() -> None:
    assert ev(call("sum", lst(s("a")))) is UNDEFINED
    assert ev(call("sum", n("xs")), xs=(1, True)) is UNDEFINED
    assert ev(call("sum", n("xs")), xs=[1, 2]) is UNDEFINED  # a Python list is not a value
    assert ev(call("len", n("xs")), xs=[1, 2]) is UNDEFINED
    assert ev(call("sorted", n("xs")), xs=(1, "a")) is UNDEFINED
    assert ev(op(lst(i(1)), "+", lst(s("a")))) is UNDEFINED
    assert ev(call("occurrences", lst(i(1)), s("1"))) is UNDEFINED
    assert ev(call("occurrences", s("abc"), s("a"))) is UNDEFINED


# --------------------------------------------------------------------------- dates


def test_date_arithmetic() -> None:
    assert same(ev(op(d("2024-03-01"), "-", d("2024-02-01"))), 29)
    assert same(ev(op(d("2024-02-01"), "-", d("2024-03-01"))), -29)
    assert same(ev(op(d("2024-02-28"), "+", i(1))), date(2024, 2, 29))
    assert same(ev(op(i(1), "+", d("2024-02-28"))), date(2024, 2, 29))
    assert same(ev(op(d("2024-03-01"), "-", i(1))), date(2024, 2, 29))
    assert ev(cmp(d("2024-01-01"), "<", d("2024-01-02"))) is True
    assert ev(op(d("2024-01-01"), "+", d("2024-01-01"))) is UNDEFINED
    assert ev(op(i(1), "-", d("2024-01-01"))) is UNDEFINED
    assert ev(op(d("2024-01-01"), "+", r("1.0"))) is UNDEFINED


@pytest.mark.parametrize(
    "expr",
    [
        op(d("9999-12-31"), "+", i(1)),
        op(d("0001-01-01"), "-", i(1)),
        op(d("0001-01-01"), "+", neg(i(1))),
        op(d("2024-01-01"), "+", i(10**20)),
        op(d("2024-01-01"), "-", i(10**20)),
    ],
)
def test_leaving_the_calendar_is_undefined(expr: Expr) -> None:
    assert ev(expr) is UNDEFINED


def test_date_extremes_are_reachable() -> None:
    assert same(ev(op(d("9999-12-30"), "+", i(1))), date(9999, 12, 31))
    assert same(ev(op(d("9999-12-31"), "-", d("0001-01-01"))), 3652058)


def test_a_datetime_is_not_a_date() -> None:
    assert ev(op(n("t"), "+", i(1)), t=datetime(2024, 1, 1)) is UNDEFINED
    assert ev(cmp(n("t"), "==", d("2024-01-01")), t=datetime(2024, 1, 1)) is UNDEFINED


# --------------------------------------------------------------------------- enums


class Colour(enum.Enum):
    red = 1


def test_enum_equality_is_by_enum_and_member() -> None:
    assert ev(cmp(em("C", "red"), "==", n("x")), x=EnumValue("C", "red")) is True
    assert ev(cmp(em("C", "red"), "!=", n("x")), x=EnumValue("C", "blue")) is True
    assert ev(cmp(em("C", "red"), "==", n("x")), x=EnumValue("D", "red")) is UNDEFINED
    assert ev(cmp(em("C", "red"), "==", n("x")), x="red") is UNDEFINED
    assert ev(cmp(em("C", "red"), "==", n("x")), x=Colour.red) is UNDEFINED
    assert ev(cmp(em("C", "red"), "in", lst(em("C", "blue"), em("C", "red")))) is True


# --------------------------------------------------------------------------- quantifiers


def test_quantifier_over_an_inclusive_range() -> None:
    assert ev(quant("forall", "k", i(1), i(3), cmp(n("k"), ">", i(0)))) is True
    assert ev(quant("forall", "k", i(1), i(3), cmp(n("k"), "<", i(3)))) is False
    assert ev(quant("exists", "k", i(1), i(3), cmp(n("k"), "==", i(3)))) is True
    assert ev(quant("exists", "k", i(1), i(3), cmp(n("k"), "==", i(4)))) is False


def test_quantifier_over_an_empty_range() -> None:
    assert ev(quant("forall", "k", i(1), i(0), FALSE)) is True
    assert ev(quant("exists", "k", i(1), i(0), TRUE)) is False
    assert ev(quant("forall", "k", i(1), i(0), BOOM)) is True


def test_quantifier_short_circuits_in_increasing_order() -> None:
    body = cmp(op(i(10), "//", op(n("k"), "-", i(2))), ">=", i(0))  # undefined at k == 2
    # k = 0 is false before k = 2 is undefined
    assert ev(quant("forall", "k", i(0), i(3), body)) is False
    # k = 2 is undefined before k = 3 would be... true; nothing decides before it
    assert ev(quant("forall", "k", i(2), i(4), body)) is UNDEFINED
    # exists: k = 3 decides (true) only after k = 2 was undefined
    assert ev(quant("exists", "k", i(2), i(3), body)) is UNDEFINED
    assert ev(quant("exists", "k", i(3), i(9), bop(body, "or", BOOM))) is True


def test_quantifier_bounds_are_ints_evaluated_before_the_body() -> None:
    assert ev(quant("forall", "k", DIV0, BOOM, BOOM)) is UNDEFINED
    assert ev(quant("forall", "k", i(0), r("2.0"), TRUE)) is UNDEFINED
    assert ev(quant("forall", "k", n("lo"), i(2), TRUE), lo=True) is UNDEFINED
    assert ev(quant("forall", "k", i(0), i(2), n("k"))) is UNDEFINED  # non-bool body


def test_bound_variables_shadow_and_are_restored() -> None:
    body = cmp(n("k"), "<", i(3))
    after = bop(quant("forall", "k", i(0), i(2), body), "and", cmp(n("k"), "==", i(100)))
    assert ev(after, k=100) is True
    consts = Evaluator(consts={"k": 100})
    assert consts.eval(after, {}) is True
    # nested binders of the same name: the inner one wins inside, the outer is back after
    inner = quant("exists", "k", i(5), i(5), cmp(n("k"), "==", i(5)))
    nested = quant("forall", "k", i(0), i(1), bop(inner, "and", cmp(n("k"), "<", i(2))))
    assert ev(nested) is True
    # a bound name shadows a parameter of another type, too
    assert ev(quant("forall", "s", i(0), i(1), cmp(n("s"), ">=", i(0))), s="text") is True


def test_quantifier_step_limit_is_an_error_not_undefined() -> None:
    small = Evaluator(max_iterations=10)
    with pytest.raises(EvaluationLimitError, match="10"):
        small.eval(quant("forall", "k", i(0), i(100), TRUE), {})
    # a short-circuit before the limit is fine, even over an astronomically long range
    assert small.eval(quant("exists", "k", i(0), i(10**30), cmp(n("k"), "==", i(3))), {}) is True
    assert issubclass(EvaluationLimitError, DerivativeError)


# --------------------------------------------------------------------------- generators


def test_all_and_any_over_a_list() -> None:
    xs = lst(i(1), i(2), i(3))
    assert ev(gen("all", "x", xs, cmp(n("x"), ">", i(0)))) is True
    assert ev(gen("all", "x", xs, cmp(n("x"), ">", i(1)))) is False
    assert ev(gen("any", "x", xs, cmp(n("x"), "==", i(2)))) is True
    assert ev(gen("any", "x", xs, cmp(n("x"), "==", i(9)))) is False
    assert ev(gen("all", "x", lst(), FALSE)) is True
    assert ev(gen("any", "x", lst(), TRUE)) is False


def test_all_and_any_short_circuit_in_list_order() -> None:
    body = cmp(op(i(6), "//", n("x")), ">", i(0))  # undefined at x == 0
    assert ev(gen("all", "x", lst(i(-1), i(0)), body)) is False
    assert ev(gen("all", "x", lst(i(0), i(-1)), body)) is UNDEFINED
    assert ev(gen("any", "x", lst(i(1), i(0)), body)) is True
    assert ev(gen("any", "x", lst(i(0), i(1)), body)) is UNDEFINED
    assert ev(gen("all", "x", DIV0, BOOM)) is UNDEFINED


def test_generator_binds_elements_and_rejects_non_lists() -> None:
    assert ev(gen("all", "x", n("xs"), cmp(n("x"), "in", s("abc"))), xs=("a", "bc")) is True
    assert ev(gen("all", "x", s("abc"), TRUE)) is UNDEFINED
    assert ev(gen("all", "x", n("xs"), TRUE), xs=[1]) is UNDEFINED
    assert ev(gen("all", "x", n("xs"), TRUE), xs=(1, [2])) is UNDEFINED
    assert ev(gen("all", "x", n("xs"), TRUE), xs=(1, None)) is True  # none is a value
    assert ev(gen("any", "x", n("x"), cmp(n("x"), "==", i(2))), x=(1, 2)) is True


# --------------------------------------------------------------------------- names, hooks, API


def test_unbound_names_are_caller_errors() -> None:
    with pytest.raises(EvaluationError, match="'nope'"):
        ev(n("nope"))
    with pytest.raises(EvaluationError, match="result"):
        ev(Result())
    assert issubclass(EvaluationError, DerivativeError)


def test_result_comes_from_the_environment() -> None:
    assert ev(cmp(Result(), "==", i(3)), result=3) is True
    assert ev(cmp(Result(), "==", i(3)), result=[3]) is UNDEFINED
    # None is the value none (docs/language.md §6.6): an optional result compares
    assert ev(cmp(Result(), "==", i(3)), result=None) is False


def test_environment_then_constants() -> None:
    ev2 = Evaluator(consts={"MIN": 12, "x": 1})
    assert same(ev2.eval(op(n("MIN"), "+", n("x")), {"x": 2}), 14)
    assert same(evaluate(op(n("MIN"), "*", i(2)), {}, {"MIN": 12}), 24)
    assert same(evaluate(i(1), {}), 1)


def test_names_bound_to_non_values_are_undefined() -> None:
    junks = ([1], {1: 2}, float("nan"), float("inf"), object(), 1j, b"x", Colour.red)
    for junk in (*junks, (1, [2]), (1, "a"), ((1,), ("a",)), (datetime(2024, 1, 1),)):
        assert ev(n("x"), x=junk) is UNDEFINED
        assert ev(cmp(n("x"), "==", n("x")), x=junk) is UNDEFINED
    # a malformed list is refused as a whole, even where only a good element is used
    assert ev(idx(n("xs"), i(0)), xs=(1, [2])) is UNDEFINED
    assert ev(call("len", n("xs")), xs=(1, "a")) is UNDEFINED


def test_count_uses_the_hook_or_is_undefined() -> None:
    assert ev(cmp(Count(op="reset"), "<=", i(1))) is UNDEFINED
    seen: list[Count] = []

    def hook(node: Count) -> int:
        seen.append(node)
        return 1

    node = Count(op="reset", where=TRUE, per="token")
    assert Evaluator(count_hook=hook).eval(cmp(node, "<=", i(1)), {}) is True
    assert seen == [node]


def test_hook_results_are_checked_like_environment_values() -> None:
    junk = Evaluator(count_hook=lambda node: (1, [2]))  # type: ignore[arg-type,return-value]
    assert junk.eval(cmp(Count(op="reset"), "==", lst(i(1))), {}) is UNDEFINED
    calls = iter([(1, 2), (3, "x")])
    hook = Evaluator(call_hook=lambda node, args: next(calls))  # type: ignore[arg-type,return-value]
    both = op(call("f"), "+", call("g"))
    assert hook.eval(both, {}) is UNDEFINED


def test_calls_of_spec_functions_go_to_the_call_hook() -> None:
    example = cmp(call("is_strong", op(s("ab"), "+", s("c"))), "==", FALSE)
    with pytest.raises(EvaluationError, match="is_strong"):
        ev(example)
    got: list[tuple[str, tuple[object, ...]]] = []

    def hook(node: Call, args: tuple[object, ...]) -> bool:
        got.append((node.func, args))
        return False

    assert Evaluator(call_hook=hook).eval(example, {}) is True
    assert got == [("is_strong", ("abc",))]
    # arguments are evaluated first; an undefined one means no call
    assert Evaluator(call_hook=hook).eval(call("f", DIV0), {}) is UNDEFINED
    assert len(got) == 1


@pytest.mark.parametrize(
    "expr", [call("len"), call("len", s("a"), s("b")), call("matches", s("a")), call("min")]
)
def test_wrong_arity_of_a_builtin_is_a_caller_error(expr: Expr) -> None:
    with pytest.raises(EvaluationError, match="argument"):
        ev(expr)


def test_holds_is_bool_or_undefined() -> None:
    assert E.holds(TRUE, {}) is True
    assert E.holds(cmp(i(1), ">", i(2)), {}) is False
    assert E.holds(UNDEF, {}) is UNDEFINED
    assert E.holds(i(1), {}) is UNDEFINED  # not a condition
    assert E.holds(n("flag"), {"flag": 1}) is UNDEFINED


def test_deep_expressions_hit_a_limit_error_not_a_crash() -> None:
    depth = sys.getrecursionlimit() * 2
    expr: Expr = i(1)
    for _ in range(depth):
        expr = neg(expr)
    with pytest.raises(EvaluationLimitError, match="deeply nested"):
        ev(expr)


def test_evaluator_holds_no_state_between_calls() -> None:
    expr = quant("exists", "k", i(0), i(3), cmp(n("k"), "==", n("want")))
    assert E.eval(expr, {"want": 2}) is True
    assert E.eval(expr, {"want": 9}) is False
    env: Mapping[str, object] = {"k": 5, "want": 2}
    assert E.eval(bop(expr, "and", cmp(n("k"), "==", i(5))), env) is True
