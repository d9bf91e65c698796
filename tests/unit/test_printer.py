"""``to_source``: the language's own syntax with only the parentheses it needs."""

from __future__ import annotations

from typing import Any

import pytest

from derivative import _ast as A
from derivative._printer import quote, to_source
from derivative.grammar import parse_text


def parse_expr(src: str) -> Any:
    return parse_text(f"spec s version 1\nrequirement R: {src}\n").obligations[0].expr


@pytest.mark.parametrize(
    "src",
    [
        "a or b and c",
        "(a or b) and c",
        "not (a and b)",
        "not a == b",
        "a implies b implies c",
        "(a implies b) implies c",
        "a iff b iff c",
        "a iff (b iff c)",
        "if a then b else c or d",
        "(if a then b else c) or d",
        "if a then b else c implies d",
        "x - (y - z)",
        "x - y - z",
        "(x + y) * z",
        "-(x + y)",
        "--x",
        "-x * y",
        "x // -y % 3",
        "0 <= x < 10",
        "(a < b) == c",
        "x in 0..n - 1",
        "x not in xs + ys",
        "xs[i + 1][0]",
        "(-x)[0]",
        "f(a, b)[1]",
        "a and forall i in 0..3: b or c",
        "(forall i in 0..3: b) or c",
        "not (forall i in 0..3: b) and c",
        "if forall i in 0..1: a then b else c",
        "[forall i in 0..1: p, q]",
        "all(x > 0 for x in xs + ys)",
        "any(x for x in (if a then xs else ys))",
        "count(o where result == E.a and k > 0, per k) <= 1",
        "count(o) >= 0",
        'date("2026-03-01") < d',
        '"a\\nb\\"c\\\\" == s',
        "2.5 * x == 1.0",
        "true != false",
        "result == E.m",
    ],
)
def test_printed_text_is_canonical(src: str) -> None:
    e = parse_expr(src)
    assert to_source(e) == src
    assert parse_expr(to_source(e)).model_dump() == e.model_dump()


@pytest.mark.parametrize(
    ("src", "printed"),
    [
        ("((a))", "a"),
        ("(a and b) and c", "a and b and c"),
        ("a - (b + c)", "a - (b + c)"),
        ("(x * y) * z", "x * y * z"),
        ("x shall be between 1 and 2", "1 <= x <= 2"),
        ("when a, b shall be at most 3", "a implies b <= 3"),
        ("never (a or b)", "not (a or b)"),
        ("a implies (forall i in 0..1: b)", "a implies forall i in 0..1: b"),
        ("'single'", '"single"'),
        (r'r"\d"', '"\\\\d"'),
    ],
)
def test_redundant_parentheses_are_dropped(src: str, printed: str) -> None:
    assert to_source(parse_expr(src)) == printed


def test_negative_literals_print_as_unary_minus() -> None:
    e = A.BinOp(op="*", operands=(A.IntLit(value=-2), A.Name(id="x")))
    assert to_source(e) == "-2 * x"
    e2 = A.Index(base=A.IntLit(value=-2), index=A.IntLit(value=0))
    assert to_source(e2) == "(-2)[0]"


def test_quote_round_trips_control_and_astral_characters() -> None:
    for s in ["", "plain", "\x00\x7f\u200b", "tab\t", "\U0001f600", 'q"\\']:
        assert parse_expr(f"{quote(s)} == x").operands[0].value == s
