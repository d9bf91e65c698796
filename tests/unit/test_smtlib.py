"""The SMT-LIB printer: Python semantics spelt out, exact literals, safe symbols, determinism."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import Any

import pytest
import z3

from derivative._ast import Count, Expr
from derivative._eval import Evaluator
from derivative._types import BOOL, DATE, INT, REAL, STR, TEnum, TInt, TList, Ty
from derivative._values import UNDEFINED, EnumValue
from derivative.certificates._smt_syntax import real_term
from derivative.certificates._smtlib import (
    CoreScope,
    EncodingError,
    SmtEncoder,
    encode_script,
    label_symbol,
    string_literal,
    symbol,
    value_term,
)
from derivative.grammar import parse_text

COLOR = TEnum("Color", ("red", "green"))
TYPES: dict[str, Ty] = {
    "a": INT, "b": INT, "x": REAL, "s": STR, "d": DATE, "xs": TList(INT), "c": COLOR, "p": BOOL,
}  # fmt: skip


def expr(text: str) -> Expr:
    """Parse one expression over TYPES (through a spec, as the language reads it)."""
    decls = "\n".join(f"param {n}: {t.show()}" for n, t in TYPES.items())
    spec = f"spec t version 1\nenum Color {{ red, green }}\n{decls}\nrequirement E: {text}\n"
    return parse_text(spec).obligations[0].expr


def z3_says(script: str) -> str:
    ctx = z3.Context()
    answer: str = z3.Z3_eval_smtlib2_string(ctx.ref(), script)
    return answer.strip()


def smt_agrees(text: str, env: dict[str, Any]) -> None:
    """The printer's (defined, value) equals the evaluator's answer at ``env``."""
    e = expr(text)
    expected = Evaluator().eval(e, env)
    encoder = SmtEncoder(CoreScope(variables=TYPES, fixed=env, enums={"Color": COLOR}))
    term = encoder.term(e)
    preamble = "\n".join(encoder.preamble())
    defined = "false" if expected is UNDEFINED else "true"
    assert z3_says(f"{preamble}\n(assert (not (= {term.defined} {defined})))\n(check-sat)") == (
        "unsat"
    ), (text, expected)
    if expected is not UNDEFINED:
        want = value_term(expected, term.ty)
        assert z3_says(f"{preamble}\n(assert (not (= {term.value} {want})))\n(check-sat)") == (
            "unsat"
        ), (text, expected)


ENV: dict[str, Any] = {
    "a": -7, "b": 3, "x": Fraction(-15, 2), "s": "ab\n", "d": dt.date(9999, 12, 30),
    "xs": (3, 1, 2), "c": EnumValue("Color", "red"), "p": True,
}  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "a // b", "a % b", "a // -b", "a % -b", "-a // -b", "-a % -b", "7 // -2", "-7 % 2",
        "x // 2", "x % 2", "x % -2", "a / b", "a // 0", "a % (b - 3)", "x / 0",
    ],
)  # fmt: skip
def test_floor_division_and_modulo_are_pythons(text: str) -> None:
    smt_agrees(text, ENV)


@pytest.mark.parametrize(
    "text",
    [
        'matches(s, "ab.")',  # '.' does not match the newline
        'matches(s, "ab[^x]")',  # but a negated class does
        'matches(s, "[a-z]+\\n")',
        'int("0012") == 12', 'int(" 5") == 5', 'int("") == 0', 'int("-5") == -5',
        'str(-12) == "-12"', 'startswith(s, "ab")', 'endswith(s, "b")', '"b\\n" in s',
        "s[2] == \"\\n\"", "s[3] == \"x\"", "xs[-1] == 2",
    ],
)  # fmt: skip
def test_strings_regexes_and_undefinedness(text: str) -> None:
    smt_agrees(text, ENV)


@pytest.mark.parametrize(
    "text",
    [
        "d + 1 > d", "d + 2 > d", "d - d == 0", 'd - date("0001-01-01") > 0',
        'date("0001-01-01") - 1 < d',
        "false and a // 0 == 0", "a // 0 == 0 and false", "true or a // 0 == 0",
        "a // 0 == 0 or true", "false implies a // 0 == 0", "a < 0 < a // 0",
        "a > 0 > a // 0", "if p then 1 else a // 0", "if not p then 1 else a // 0",
        "forall k in 0..2: 10 // (k - 1) > 0", "forall k in 0..2: 10 // (1 - k) > 0",
        "exists k in 0..2: 10 // (1 - k) > 0", "exists k in 1..2: 10 // (1 - k) > 0",
        "all(10 // (e - 1) > 0 for e in xs)", "any(10 // (e - 3) > 0 for e in xs)",
        "max(xs) == 3", "min([]) == 0", "sum(xs) == 6", "sorted(xs) == [1, 2, 3]",
        "occurrences(xs + xs, 1) == 2", "c == Color.red", "x in 0..3", "-8 in a..b",
        "3 in xs", "len(xs) == 3", "abs(x) == 7.5", "max(a, x) == a",
        "4 in xs", "4 not in xs", "a in xs + [-7]", "x in xs", "3.0 in xs", "-7.5 in [x]",
        "a in [b, -7]", "b in [1, 2]", "a in [1 // 0, -7]", "x in [3, 1]",
    ],
)  # fmt: skip
def test_dates_short_circuits_binders_and_builtins(text: str) -> None:
    smt_agrees(text, ENV)


def test_string_literals_escape_everything_outside_printable_ascii() -> None:
    assert string_literal('a"b') == '"a""b"'
    assert string_literal("\\u{41}") == '"\\u{5c}u{41}"'  # stays six characters
    assert string_literal("é\n") == '"\\u{e9}\\u{a}"'
    six = string_literal("\\u{41}")
    assert z3_says(f"(assert (not (= (str.len {six}) 6)))(check-sat)") == "unsat"
    with pytest.raises(EncodingError, match="beyond U\\+2FFFF"):
        string_literal(chr(0x30000))


def test_reals_are_exact() -> None:
    assert real_term(Fraction(1, 4)) == "0.25"
    assert real_term(Fraction(-3)) == "(- 3.0)"
    assert real_term(Fraction(1, 3)) == "(/ 1.0 3.0)"


def test_names_that_solvers_reserve_are_renamed_and_labels_quoted() -> None:
    assert symbol("max_attempts") == "max_attempts"
    assert symbol("abs") == "|abs'|"
    assert symbol("bvadd") == "|bvadd'|"
    assert label_symbol("lockout_minutes.range") == "|lockout_minutes.range|"
    assert label_symbol("x", taken={"x"}) == "|x!label|"
    scope = CoreScope(variables={"abs": INT, "div": INT})
    script = encode_script([("abs", expr_over({"abs": INT, "div": INT}, "abs > div"))], scope)
    assert "(declare-fun |abs'| () Int)" in script
    assert "(assert (! (> |abs'| |div'|) :named |abs!label|))" in script
    assert z3_says(script) == "sat"


def expr_over(types: dict[str, Ty], text: str) -> Expr:
    decls = "\n".join(f"param {n}: {t.show()}" for n, t in types.items())
    return parse_text(f"spec t version 1\n{decls}\nrequirement E: {text}\n").obligations[0].expr


def test_the_script_is_deterministic_and_fixes_the_witness() -> None:
    scope = CoreScope(
        variables={"b": INT, "a": TInt(0, 9), "s": STR},
        fixed={"s": "hi"},
        consts={"LIMIT": (INT, 4)},
        result=INT,
        function="f",
    )
    types = {"a": INT, "b": INT, "s": STR, "LIMIT": INT}
    members = [("R2", expr_over(types, "b < LIMIT")), ("R1", expr_over(types, "a + len(s) > b"))]
    first = encode_script(members, scope)
    assert first == encode_script(members, scope)
    assert first.splitlines() == [
        "(set-logic ALL)",
        "(define-fun LIMIT () Int 4)",
        "(declare-fun a () Int)",
        "(declare-fun b () Int)",
        '(define-fun s () String "hi")',
        "(assert (! (< b LIMIT) :named |R2|))",
        "(assert (! (> (+ a (str.len s)) b) :named |R1|))",
        "(check-sat)",
    ]


def test_constructs_without_a_faithful_encoding_are_refused() -> None:
    scope = CoreScope(variables={"xs": TList(INT), "x": REAL})
    with pytest.raises(EncodingError, match="ordering"):
        encode_script([("L", expr_over({"xs": TList(INT)}, "xs < [1]"))], scope)
    with pytest.raises(EncodingError, match="str\\(\\) of a real"):
        encode_script([("S", expr_over({"x": REAL}, 'str(x) == "1"'))], scope)
    with pytest.raises(EncodingError, match="count"):
        encode_script([("C", Count(op="reset"))], scope)
    with pytest.raises(EncodingError, match="not declared"):
        encode_script([("N", expr_over({"y": INT}, "y > 0"))], scope)


def test_a_declared_date_is_a_calendar_day() -> None:
    scope = CoreScope(variables={"d": DATE})
    script = encode_script([("D", expr_over({"d": DATE}, 'd < date("0001-01-01")'))], scope)
    assert "(assert (and (<= 1 d) (<= d 3652059)))" in script  # unnamed: not a core member
    assert z3_says(script) == "unsat"
    script = encode_script([("D", expr_over({"d": DATE}, 'd <= date("0001-01-01")'))], scope)
    assert z3_says(script) == "sat"


def test_list_membership_is_an_index_that_all_can_meet() -> None:
    """``3 in xs`` next to ``all(x > 5 for x in xs)``: z3 refutes it at once.

    Written as ``(seq.contains xs (seq.unit 3))`` z3 5.4 gave no answer within 120 s;
    as "some index in range holds 3" the quantifier of ``all`` is instantiated with
    that index.  The timeout makes a regression fail instead of hang.
    """
    types: dict[str, Ty] = {"xs": TList(INT)}
    scope = CoreScope(variables=types)
    members = [
        ("R1", expr_over(types, "3 in xs")),
        ("R2", expr_over(types, "all(x > 5 for x in xs)")),
    ]
    script = encode_script(members, scope)
    assert "seq.contains" not in script
    assert z3_says("(set-option :timeout 20000)\n" + script) == "unsat"
    literal = encode_script([("L", expr_over(types, "3 in [xs[0], 4]"))], scope)
    assert "exists" not in literal  # a literal list is a plain disjunction
    assert "(or (= 3 (seq.nth xs 0)) (= 3 4))" in literal


def function_example(text: str, clauses: str = "") -> Expr:
    spec = f"spec t version 1\nfunction f(x: int, s: str) -> int\n    example E: {text}\n{clauses}"
    return parse_text(spec).obligations[0].expr


def test_a_call_of_the_function_is_defined_only_at_its_own_input() -> None:
    scope = CoreScope(variables={"x": INT, "s": STR}, result=INT, function="f", inputs=("x", "s"))
    example = ("E", function_example('f(3, "a") == 4'))
    requires = ("P", expr_over({"x": INT}, "x >= 5"))
    script = encode_script([example, requires], scope)
    assert "(declare-fun x () Int)" in script
    assert '(assert (! (and (and (= x 3) (= s "a")) (= result 4)) :named |E|))' in script
    assert z3_says(script) == "unsat"  # the example's input breaks the requires
    assert z3_says(encode_script([example], scope)) == "sat"
    assert z3_says(encode_script([requires], scope)) == "sat"
    # with the input fixed (an unrealizable witness), the same call is pinned to it
    fixed = CoreScope(
        variables={"x": INT, "s": STR},
        fixed={"x": 3, "s": "a"},
        result=INT,
        function="f",
        inputs=("x", "s"),
    )
    assert z3_says(encode_script([example], fixed)) == "sat"
    with pytest.raises(EncodingError, match="called with 2 arguments, not 1"):
        encode_script([example], CoreScope(variables={"x": INT}, result=INT, function="f",
                                           inputs=("x",)))  # fmt: skip
