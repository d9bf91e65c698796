"""The type checker, driven by small spec texts: one test per kind of error, each
asserting the message, the line and the column (marked ``‸`` in the text), plus the
well-typed forms that must pass and the ``TypeInfo`` the back-ends read."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from pathlib import Path

import pytest

from derivative._errors import SpecError, SpecErrors
from derivative._typecheck import TypeInfo, check
from derivative._types import BOOL, INT, REAL, STR, TEnum, TInt, TList, TNone, TStr
from derivative._values import EnumValue
from derivative.grammar import load, parse_text

MARK = "‸"
REPO = Path(__file__).resolve().parents[2]

_counter = [0]


def _file() -> str:
    _counter[0] += 1
    return f"<typecheck-{_counter[0]}>"


def _spec(body: str) -> str:
    return "spec t version 1\n" + textwrap.dedent(body).lstrip("\n")


def ok(body: str) -> TypeInfo:
    """Type-check a spec that must be clean."""
    return check(parse_text(_spec(body), _file()))


@dataclass
class Marked:
    text: str
    line: int
    column: int


def _marked(body: str) -> Marked:
    text = _spec(body)
    assert text.count(MARK) == 1, "mark the expected error position with one ‸"
    for n, line in enumerate(text.splitlines(), start=1):
        if MARK in line:
            return Marked(text.replace(MARK, ""), n, line.index(MARK) + 1)
    raise AssertionError


def errors_of(text: str) -> list[SpecError]:
    contract = parse_text(text, _file())
    with pytest.raises(SpecErrors) as info:
        check(contract)
    return list(info.value.errors)


def one_error(body: str, fragment: str, hint: str | None = None) -> SpecError:
    """The spec has exactly one error, at the ‸, whose message contains ``fragment``."""
    m = _marked(body)
    errs = errors_of(m.text)
    assert len(errs) == 1, [e.render() for e in errs]
    e = errs[0]
    assert fragment in e.message, e.render()
    assert (e.line, e.column) == (m.line, m.column), e.render()
    if hint is not None:
        assert e.hint is not None and hint in e.hint, e.render()
    return e


# --------------------------------------------------------------------------- names


def test_undeclared_name_with_closest_hint() -> None:
    one_error(
        """
        param max_attempts: int
        requirement R1: ‸max_atempts >= 3
        """,
        "unknown name 'max_atempts'",
        hint="did you mean 'max_attempts'?",
    )


def test_undeclared_name_in_a_function_clause_suggests_parameters() -> None:
    one_error(
        """
        function f(password: str) -> bool
            requires: len(‸pasword) > 0
        """,
        "unknown name 'pasword'",
        hint="'password'",
    )


def test_param_in_function_clause() -> None:
    one_error(
        """
        param limit: int
        function f(n: int) -> bool
            requires: n <= ‸limit
        """,
        "the param 'limit' cannot be used in a function or operation clause",
        hint="declare it const",
    )


def test_param_in_operation_clause() -> None:
    one_error(
        """
        param limit: int
        system S
            operation op(n: int) -> int
                ensures: result <= ‸limit
        """,
        "param 'limit'",
        hint="pass limit in as an argument",
    )


def test_param_in_const() -> None:
    one_error(
        """
        param p: int
        const C: int = ‸p + 1
        """,
        "a constant cannot use the param 'p'",
    )


def test_enum_used_as_value() -> None:
    one_error(
        """
        enum Color { red, green }
        param c: Color
        requirement R: c == ‸Color
        """,
        "'Color' is an enum, not a value",
        hint="Color.red",
    )


def test_parameter_named_like_a_const() -> None:
    one_error(
        """
        const LIMIT: int = 3
        function f(‸LIMIT: int) -> int
        """,
        "parameter 'LIMIT' of f has the name of a constant",
    )


# --------------------------------------------------------------------------- operators


@pytest.mark.parametrize(
    ("expr", "fragment"),
    [
        ('‸n + "a" == 1', "operator `+` cannot combine int and str"),
        ("‸d + d == d", "operator `+` cannot combine date and date"),
        ("‸s * 2 == s", "operator `*` cannot combine str and int"),
        ('‸s - s == ""', "operator `-` cannot combine str and str"),
        ("‸b + 1 == 2", "operator `+` cannot combine bool and int"),
        ("‸n / d == 1.0", "operator `/` cannot combine int and date"),
        ("‸s < 1", "cannot order str and int with `<`"),
        ("‸b < true", "cannot order bool and bool"),
        ('‸n == "1"', "cannot compare int with str using `==`"),
        ("‸b == 1", "cannot compare bool with int"),
        ("‸d == 1", "cannot compare date with int"),
        ("xs == [1.5, 2.0] and ‸xs == [true]", "cannot compare list[int] with list[bool]"),
        ("‸-s == s", "unary `-` needs an int or real, not str"),
        ("‸not n", "`not` needs a bool, not int"),
        ("n > 0 and ‸n", "operands of `and` must be bool, not int"),
        ("‸n or b", "operands of `or` must be bool"),
        ("b implies ‸s", "operands of `implies` must be bool"),
        ("(if ‸n then 1 else 2) == 1", "the condition of `if` must be a bool, not int"),
        ('(‸if b then 1 else "x") == 1', "branches of `if` have different types: int and str"),
        ("‸s in 1..3", "`in LO..HI` needs an int on the left, not str"),
        ("n in 1..‸s", "range bounds must be int, not str"),
        ("‸s in xs", "cannot look for str in a list[int]"),
        ("‸n in s", "`in` on a str looks for a substring: int is no str"),
        ("n in ‸n", "`in` needs a list, a str, a dict or a range LO..HI on the right, not int"),
        ("‸b[0]", "cannot index a bool"),
        ("xs[‸s] == 1", "an index must be an int, not str"),
        ('[1, ‸"a"] == xs', "list items must have one type: int and str"),
        ("forall i in 0..‸s: i > 0", "bounds of `forall` must be int, not str"),
        ("exists i in 0..3: ‸i", "the body of `exists` must be a bool, not int"),
        ("all(‸x for x in xs)", "the body of all(...) must be a bool, not int"),
        ("any(x for x in ‸n)", "any(... for x in XS) needs a list, not int"),
        ("‸Color.red < Color.green", "cannot order Color and Color with `<`"),
        ("‸c == Shade.dark", "cannot compare Color with Shade"),
    ],
)
def test_operator_type_errors(expr: str, fragment: str) -> None:
    e = one_error(
        f"""
        enum Color {{ red, green }}
        enum Shade {{ dark, light }}
        param n: int
        param s: str
        param b: bool
        param d: date
        param c: Color
        param xs: list[int]
        requirement R: {expr}
        """,
        fragment,
    )
    if "Color and Color" in fragment:
        assert e.hint == "bools and enums have no order; use == or !="


def test_non_bool_conditions_in_every_clause_kind() -> None:
    m_lines = _spec(
        """
        param n: int
        requirement R: n + 1
        function f(x: int) -> int
            requires: x
            ensures: result
            raises ValueError when x * 2
        system S
            operation op() -> int
            invariant I: count(op) + 0
        """
    )
    errs = errors_of(m_lines)
    found = [(e.line, e.message) for e in errs]
    assert found[0] == (3, "a requirement must be a bool condition, not int")
    assert found[1] == (5, "a requires clause must be a bool condition, not int")
    assert found[2] == (6, "an ensures clause must be a bool condition, not int")
    assert found[3] == (7, "the condition of raises ... when must be a bool condition, not int")
    assert (10, "count(...) must be compared directly with a bound: count(OP where P) <= N") in (
        found
    )


# --------------------------------------------------------------------------- built-ins


@pytest.mark.parametrize(
    ("expr", "fragment", "hint"),
    [
        ("‸len(s, s) == 1", "len() takes 1 argument (2 given)", "len(s)"),
        ("‸len() == 1", "len() takes 1 argument (0 given)", None),
        ("max(‸n) == 1", "max() of one argument needs a list", "max(a, b)"),
        ("‸min() == 1", "min() takes two or more arguments, or one list (0 given)", None),
        ("min(n, ‸s) == 1", "min() needs values of one ordered type", None),
        ("‸matches(s) ", "matches() takes 2 arguments (1 given)", None),
        ("matches(s, ‸s)", "the pattern of matches() must be a string literal", None),
        ('matches(‸n, "a")', "matches() needs a str, not int", None),
        ("int(‸n) == 1", "int() needs a str, not int", None),
        ("int(‸r) == 1", "int() needs a str, not real", "no real-to-int conversion"),
        ('str(‸s) == "1"', "str() needs an int, not str", None),
        ("len(‸n) == 1", "len() needs a str, list, tuple or dict, not int", None),
        ("abs(‸s) == 1", "abs() needs an int or real, not str", None),
        ("sum(‸s) == 1", "sum() needs a list of int or real, not str", None),
        ("sum(‸ss) == 1", "sum() needs a list of int or real, not list[str]", None),
        ("startswith(s, ‸n)", "startswith() needs str arguments, not int", None),
        ('occurrences(‸s, "a") == 1', "occurrences() needs a list, not str", "contains"),
        ('occurrences(xs, ‸"a") == 1', "occurrences() looks for str in a list[int]", None),
        ("sorted(‸bs) == bs", "sorted() needs a list of int, real, str or date", None),
        ("‸all(bs)", "all() takes a generator", "all(E for x in xs)"),
        ("‸lenght(s) == 1", "unknown function 'lenght'", "did you mean 'len'?"),
        (
            "‸f(1) == 1",
            "'f' is a spec function; it can only be called as the CALL of its own examples",
            None,
        ),
    ],
)
def test_builtin_errors(expr: str, fragment: str, hint: str | None) -> None:
    one_error(
        f"""
        param n: int
        param r: real
        param s: str
        param xs: list[int]
        param ss: list[str]
        param bs: list[bool]
        requirement R: {expr}
        function f(x: int) -> int
        """,
        fragment,
        hint,
    )


def test_result_outside_ensures() -> None:
    one_error(
        """
        param n: int
        requirement R: ‸result > n
        """,
        "`result` is only allowed in ensures clauses",
    )
    one_error(
        """
        function f(x: int) -> int
            requires: ‸result > x
        """,
        "`result` is only allowed in ensures clauses",
    )
    one_error(
        """
        function f(x: int) -> int
            raises ValueError when ‸result > x
        """,
        "`result` is only allowed in ensures clauses",
    )


def test_result_of_an_operation_returning_none() -> None:
    one_error(
        """
        system S
            operation op(x: int) -> none
                ensures: ‸result == 1
        """,
        "`result` has no value: S.op returns none",
    )


# --------------------------------------------------------------------------- enums


def test_unknown_enum_member() -> None:
    one_error(
        """
        enum Outcome { ok, rejected }
        param o: Outcome
        requirement R: o != ‸Outcome.okk
        """,
        "enum Outcome has no member 'okk'",
        hint="did you mean 'ok'?",
    )


def test_unknown_enum() -> None:
    one_error(
        """
        enum Outcome { ok, rejected }
        param o: Outcome
        requirement R: o != ‸Outcom.ok
        """,
        "unknown enum 'Outcom'",
        hint="did you mean 'Outcome'?",
    )


def test_unknown_type_name() -> None:
    one_error(
        """
        enum Outcome { ok, rejected }
        param o: ‸Outcom
        """,
        "'Outcom' is an unknown type",
        hint="did you mean 'Outcome'?",
    )


def test_exception_is_not_a_type() -> None:
    one_error(
        """
        param o: ‸ValueError
        """,
        "'ValueError' is an exception, not a type",
    )


# --------------------------------------------------------------------------- exceptions


def test_undeclared_exception_in_raises() -> None:
    one_error(
        """
        function f(x: int) -> int
            raises ‸TokenExpird when x > 1
        """,
        "unknown exception 'TokenExpird'",
    )


def test_builtin_exceptions_need_no_declaration() -> None:
    info = ok(
        """
        exception TokenExpired(LookupError)
        function f(x: int) -> int
            raises ZeroDivisionError when x == 0
            raises KeyboardInterrupt when x == 1
            raises TokenExpired when x == 2
            example: f(0) raises ArithmeticError
        """
    )
    assert info.exceptions == {"TokenExpired": "LookupError"}
    assert info.exception_chain("TokenExpired") == (
        "TokenExpired",
        "LookupError",
        "Exception",
        "BaseException",
    )
    assert info.is_exception("ZeroDivisionError")
    assert not info.is_exception("Foo")


def test_exception_base_must_be_known() -> None:
    one_error(
        """
        exception ‸Broken(Brokn)
        """,
        "unknown exception base 'Brokn' of Broken",
    )


def test_exception_base_may_be_declared_in_any_order() -> None:
    info = ok(
        """
        exception Worse(Broken)
        exception Broken
        """
    )
    assert info.exception_chain("Worse")[:3] == ("Worse", "Broken", "Exception")


def test_exception_base_cycle() -> None:
    errs = errors_of(_spec("exception A(B)\nexception B(A)\n"))
    assert any("exception bases form a cycle: A -> B -> A" in e.message for e in errs)


def test_declaring_a_builtin_exception() -> None:
    one_error(
        """
        exception ‸ValueError
        """,
        "ValueError is a built-in exception and cannot be declared again",
    )


def test_undeclared_exception_in_example() -> None:
    one_error(
        """
        function f(x: int) -> int
            example: f(1) raises ‸Nope
        """,
        "unknown exception 'Nope'",
    )


# --------------------------------------------------------------------------- systems


def test_from_unknown_operation() -> None:
    one_error(
        """
        system S
            operation issue() -> str
            operation redeem(‸token: str from isue) -> none
        """,
        "`from isue`: system S has no operation 'isue'",
        hint="did you mean 'issue'?",
    )


def test_from_operation_with_other_result_type() -> None:
    one_error(
        """
        system S
            operation issue() -> int
            operation redeem(‸token: str from issue) -> none
        """,
        "`from issue`: 'token' is str but S.issue returns int",
    )


def test_from_operation_returning_none() -> None:
    one_error(
        """
        system S
            operation issue() -> none
            operation redeem(‸token: str from issue) -> none
        """,
        "S.issue returns none",
    )


def test_from_with_refinement_is_compatible() -> None:
    ok(
        """
        system S
            operation issue() -> str matching "[a-z]+"
            operation redeem(token: str from issue) -> none
        """
    )


def test_count_outside_invariants() -> None:
    one_error(
        """
        function f(x: int) -> int
            ensures: ‸count(f) >= 0
        """,
        "count(...) is only allowed in system invariants",
    )


def test_count_of_unknown_operation() -> None:
    one_error(
        """
        system S
            operation reset(token: str) -> bool
            invariant I: ‸count(rest) <= 1
        """,
        "system S has no operation 'rest'",
        hint="did you mean 'reset'?",
    )


def test_count_per_unknown_parameter() -> None:
    one_error(
        """
        system S
            operation reset(token: str) -> bool
            invariant I: ‸count(reset, per tokn) <= 1
        """,
        "`per tokn`: 'tokn' is not a parameter of S.reset",
        hint="did you mean 'token'?",
    )


def test_count_predicate_is_typed_in_the_operation_scope() -> None:
    one_error(
        """
        system S
            operation reset(token: str) -> bool
            invariant I: count(reset where ‸token == 1, per token) <= 1
        """,
        "cannot compare str with int",
    )
    one_error(
        """
        system S
            operation reset(token: str) -> none
            invariant I: count(reset where ‸result, per token) <= 1
        """,
        "`result` has no value",
    )


def test_count_bound_must_be_a_constant() -> None:
    one_error(
        """
        const N: int = 1
        system S
            operation reset(token: str) -> bool
            invariant I: count(reset) <= ‸N + 1
        """,
        "a count is compared with an integer literal or an int constant",
    )
    one_error(
        """
        system S
            operation reset(token: str) -> bool
            invariant I: ‸count(reset) != 1
        """,
        "a count cannot be compared with `!=`",
    )


def test_count_forms_that_pass() -> None:
    ok(
        """
        const MAX: int = 2
        system S
            operation reset(token: str) -> bool
            invariant A: count(reset where result, per token) <= MAX
            invariant B: count(reset) shall be between 0 and 5
            invariant C: when MAX > 1, count(reset) >= -1
        """
    )


def test_count_must_be_compared_directly() -> None:
    one_error(
        """
        system S
            operation reset(token: str) -> bool
            invariant I: ‸count(reset) * 2 <= 4
        """,
        "count(...) must be compared directly with a bound",
    )


# --------------------------------------------------------------------------- regexes


def test_regex_outside_the_subset_in_matches_points_inside_the_literal() -> None:
    one_error(
        """
        param s: str
        requirement R: matches(s, "[a-z]+‸$")
        """,
        "unsupported regular expression: anchors ($)",
    )


def test_regex_position_follows_escapes_in_the_literal() -> None:
    one_error(
        """
        param s: str
        requirement R: matches(s, "\\t\\u00e9a‸(?=b)")
        """,
        "'(?' extensions",
    )


def test_regex_position_in_a_raw_string() -> None:
    one_error(
        r"""
        param s: str
        requirement R: matches(s, r"\d+‸\1")
        """,
        "back-references are not supported",
    )


def test_regex_outside_the_subset_in_a_type() -> None:
    one_error(
        """
        param code: str matching "[A-Z]{3}‸(?i)"
        """,
        "unsupported regular expression: '(?' extensions",
    )
    one_error(
        """
        function f(code: str matching "a+‸?") -> bool
        """,
        "lazy quantifiers are not supported",
    )


# --------------------------------------------------------------------------- ranges and types


def test_range_outside_in_is_an_error() -> None:
    # The parser already refuses a range after another operator; a hand-built tree is
    # refused by the checker (see test_typecheck_api.py).
    one_error(
        """
        param n: int
        requirement R: n in 1..3 and ‸n == "x"
        """,
        "cannot compare int with str",
    )


def test_range_bound_must_be_a_literal_or_constant() -> None:
    one_error(
        """
        param n: int in 0..‸LIMT
        """,
        "unknown constant 'LIMT' in a range bound",
    )
    one_error(
        """
        const NAME: str = "x"
        param n: int in 0..‸NAME
        """,
        "range bound NAME is not an int constant",
    )


def test_empty_range() -> None:
    one_error(
        """
        const HI: int = -5
        param n: ‸int in 0..HI
        """,
        "empty range: 0 > -5",
    )


def test_none_as_a_type() -> None:
    one_error(
        """
        param n: ‸none
        """,
        "`none` is only an operation's result type",
    )
    one_error(
        """
        param n: list[‸none]
        """,
        "`none` is only an operation's result type",
    )
    one_error(
        """
        system S
            operation op(x: ‸none) -> none
        """,
        "`none` is only an operation's result type",
    )


# --------------------------------------------------------------------------- constants


def test_const_cycle() -> None:
    one_error(
        """
        const ‸A: int = B + 1
        const B: int = A * 2
        """,
        "constants depend on each other in a cycle: A -> B -> A",
    )


def test_const_self_reference() -> None:
    one_error(
        """
        const ‸A: int = A + 1
        """,
        "cycle: A -> A",
    )


def test_const_of_wrong_type() -> None:
    one_error(
        """
        const A: str = ‸1 + 2
        """,
        "constant A is declared str but its value is int",
    )


def test_const_outside_its_range() -> None:
    one_error(
        """
        const A: int in 0..10 = ‸11
        """,
        "constant A = 11 is outside its type int in 0..10",
    )
    one_error(
        """
        const CODE: str matching "[A-Z]+" = ‸"abc"
        """,
        "constant CODE = 'abc' is outside its type",
    )


def test_const_undefined_value() -> None:
    one_error(
        """
        const A: int = ‸10 // (5 - 5)
        """,
        "the value of constant A is undefined",
    )


def test_const_values_are_computed_in_dependency_order() -> None:
    info = ok(
        """
        enum Level { low, high }
        const TOTAL: int = BASE * 2 + len(NAMES)
        const BASE: int in 0..LIMIT = 10
        const LIMIT: int = 100
        const NAMES: list[str] = ["a", "b"]
        const RATE: real = 1
        const HALF: real = BASE / 4
        const RATES: list[real] = [1, 0.5]
        const START: date = date("2026-03-01") + 1
        const LEVEL: Level = Level.high
        const SHOUT: str = "x" + str(BASE)
        const OK: bool = BASE > 3 and matches(SHOUT, "x[0-9]+")
        """
    )
    assert info.const_values == {
        "TOTAL": 22,
        "BASE": 10,
        "LIMIT": 100,
        "NAMES": ("a", "b"),
        "RATE": Fraction(1),
        "HALF": Fraction(5, 2),
        "RATES": (Fraction(1), Fraction(1, 2)),
        "START": date(2026, 3, 2),
        "LEVEL": EnumValue("Level", "high"),
        "SHOUT": "x10",
        "OK": True,
    }
    assert isinstance(info.const_values["RATE"], Fraction)
    assert info.const_types["BASE"] == TInt(0, 100)
    assert info.const_types["NAMES"] == TList(STR)


# --------------------------------------------------------------------------- examples


def test_example_wrong_arity() -> None:
    one_error(
        """
        function f(a: int, b: int) -> int
            example: ‸f(1) == 2
        """,
        "f() takes 2 arguments (1 given)",
        hint="parameters: a, b",
    )


def test_example_wrong_argument_type() -> None:
    one_error(
        """
        function f(a: int, b: str) -> int
            example: f(1, ‸2) == 2
        """,
        "argument 'b' of f is str, not int",
    )


def test_example_argument_outside_refinement() -> None:
    one_error(
        """
        function f(a: int in 0..10) -> int
            example: f(‸11) == 2
        """,
        "argument 'a' of f = 11 is outside its type int in 0..10",
    )
    one_error(
        """
        function f(a: str matching "[0-9]+") -> int
            example: f(‸"x1") == 2
        """,
        "argument 'a' of f = 'x1' is outside its type",
    )


def test_example_wrong_expected_type() -> None:
    one_error(
        """
        function f(a: int) -> bool
            example: f(1) == ‸1
        """,
        "f returns bool, but the example expects int",
    )


def test_example_calls_another_function() -> None:
    one_error(
        """
        function f(a: int) -> int
        function g(a: int) -> int
            example: ‸f(1) == 1
        """,
        "an example of g must call g, not f",
    )


def test_example_calls_an_unknown_function() -> None:
    one_error(
        """
        function f(a: int) -> int
            example: ‸h(1) == 1
        """,
        "an example of f must call f; 'h' is unknown",
    )


def test_example_of_operation_returning_none() -> None:
    one_error(
        """
        system S
            operation op(a: int) -> none
                example: op(1) == ‸1
        """,
        "S.op returns none; its examples can only be `op(...) raises E`",
    )


def test_example_may_use_constants_and_int_for_real() -> None:
    ok(
        """
        const N: int = 4
        enum Level { low, high }
        function f(a: int, r: real, l: Level, xs: list[real]) -> real
            example: f(N, 2, Level.low, [1, 2.5]) == 1
            example: f(N + 1, 0.5, Level.high, []) raises ValueError
        system S
            operation op(a: str) -> none
                example: op("x") raises KeyError
        """
    )


def test_example_cannot_use_params() -> None:
    one_error(
        """
        param p: int
        function f(a: int) -> int
            example: f(‸p) == 1
        """,
        "an example cannot use the param 'p'",
    )


# --------------------------------------------------------------------------- well-typed forms


def test_typing_rules_that_pass() -> None:
    ok(
        """
        enum Color { red, green }
        param n: int in 0..10
        param r: real
        param s: str matching "[a-z]+"
        param d: date
        param xs: list[int]
        param rs: list[real]
        param c: Color
        requirement A: n + r > 0.5 and n / 2 == r and n // 2 == n % 3
        requirement B: r // 2 == r % 1.5 and -r < abs(n)
        requirement C: s + "x" != s and xs + [1] == rs and [] == xs and xs != []
        requirement D: d - d == 0 and d + 1 > d and 1 + d > d - 1 and d - 2 < d
        requirement E: n in 0..10 and n not in xs and "a" in s and 1.0 in rs and n in rs
        requirement F: s[0] == "a" and xs[n] == 1 and (if n > 1 then 1 else 2.5) > 0
        requirement G: forall i in 0..n: exists j in i..10: i <= j
        requirement H: all(x > 0 for x in xs) and any(x == c for x in [Color.red])
        requirement I: len(s) + len(xs) == sum(xs) and sum(rs) > 0.0 and sum([]) == 0
        requirement J: min(n, r) <= max(xs) and min(s, "b") == "a" and max(d, d) == d
        requirement K: int("12") == n and str(n) == s and matches(s, r"\\w+")
        requirement L: startswith(s, "a") and endswith(s, "b") and contains(s, "c")
        requirement M: occurrences(xs, 1) == 2 and occurrences(rs, n) >= 0
        requirement N: sorted(xs) == xs and sorted([s]) == [s] and sorted([d]) == [d]
        requirement O: c == Color.red iff c != Color.green
        requirement P: 0 <= n < 10 <= 100 and n == r and min([1.5, 2]) > 0
        requirement Q: all(x for x in [true]) and [[1], [2.5]] != [] and [[1]] == [[2.5]]
        requirement S: forall n in 0..3: n >= 0
        """
    )


def test_bound_variables_shadow_and_take_element_types() -> None:
    ok(
        """
        param ss: list[str]
        param n: int
        requirement R: all(len(n) > 0 for n in ss) and n > 0
        """
    )


def test_all_errors_are_collected() -> None:
    text = _spec(
        """
        param n: int
        requirement A: n + "a" == 1
        requirement B: m > 1
        requirement C: len(n) == 1
        function f(x: int) -> int
            raises Nope when x > 0
        """
    )
    errs = errors_of(text)
    assert [e.line for e in errs] == [3, 4, 5, 7]


# --------------------------------------------------------------------------- TypeInfo


def test_typeinfo_of_the_language_example() -> None:
    contract = load([REPO / "tests" / "golden" / "language" / "password_policy.req"])
    info = check(contract)
    assert info.enums["Outcome"] == TEnum("Outcome", ("ok", "rejected", "expired"))
    assert info.param_types["lockout_minutes"] == TInt(0, 1440)
    assert info.signatures["TokenStore.forget"].returns == TNone()
    assert info.signatures["TokenStore.reset"].params[0] == ("token", STR, "issue")
    by_id = {o.id: o for o in contract.obligations}
    assert set(info.scope(by_id["R1"])) == {
        "MIN_LENGTH",
        "max_attempts",
        "lockout_minutes",
        "window_minutes",
    }
    assert info.scope(by_id["S1"]) == {"MIN_LENGTH": INT, "password": STR}
    assert info.result_type(by_id["S1"]) == BOOL
    assert info.result_type(by_id["P1"]) is None
    assert info.scope(by_id["X1"]) == {"MIN_LENGTH": INT}
    names, result = info.count_scope("TokenStore", "reset")
    assert names == {"MIN_LENGTH": INT, "token": STR, "password": STR}
    assert result == info.enums["Outcome"]
    ensures = by_id["S1"]
    assert info.type_of(ensures.expr, info.scope(ensures), info.result_type(ensures)) == BOOL


def test_golden_and_example_specs_type_check_cleanly() -> None:
    roots = [REPO / "tests" / "golden" / "language", REPO / "examples"]
    specs = [p for root in roots for p in sorted(root.rglob("*.req")) if "errors" not in p.parts]
    assert len(specs) >= 3
    for path in specs:
        check(load([path]))


def test_rendered_error_has_position_prefix_and_caret() -> None:
    path = "<render-test>"
    text = _spec(
        """
        param max_attempts: int
        requirement R1: max_atempts >= 3
        """
    )
    with pytest.raises(SpecErrors) as info:
        check(parse_text(text, path))
    rendered = info.value.render()
    assert rendered.splitlines() == [
        f"{path}:3:17: error: unknown name 'max_atempts'",
        "    requirement R1: max_atempts >= 3",
        "                    ^",
        "hint: did you mean 'max_attempts'?",
    ]


def test_types_of_real_and_refined_names() -> None:
    info = ok(
        """
        param n: int in 0..9
        param s: str matching "[a-z]+"
        requirement R: n >= 0 and len(s) >= 0
        """
    )
    assert info.param_types == {"n": TInt(0, 9), "s": TStr("[a-z]+")}
    ob = info.contract.obligations[0]
    scope = info.scope(ob)
    from derivative._ast import BinOp, Name, RealLit

    assert info.type_of(Name(id="n"), scope) == TInt(0, 9)
    assert info.type_of(BinOp(op="+", operands=(Name(id="n"), Name(id="n"))), scope) == INT
    assert info.type_of(BinOp(op="*", operands=(Name(id="n"), RealLit(value="0.5"))), scope) == (
        REAL
    )
