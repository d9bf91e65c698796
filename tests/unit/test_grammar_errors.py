"""Syntax errors: position, source line, caret and a hint that says what to do."""

from __future__ import annotations

import pytest

from derivative._errors import SpecError
from derivative.grammar import parse_text
from derivative.grammar._hints import _HEADER, EXAMPLES, example_table
from derivative.grammar._parser import _failure_point

HEADER = "spec s version 1\n"


def err(text: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        parse_text(text, "bad.req")
    return info.value


@pytest.mark.parametrize(
    ("body", "line", "column", "message", "hint"),
    [
        ("requirement R1 x >= 3", 2, 16, "missing ':'", "colon"),
        ("requirement R1 [a: b] x >= 3", 2, 23, "missing ':'", "colon"),
        ("requirement R1:", 2, 16, "missing condition", "after the colon"),
        ("requirement:", 2, 13, "missing condition", "after the colon"),
        ("param x: int\nrequirement R1: x = 3", 3, 19, "`=` is not a comparison", "=="),
        ("param x: int\nrequirement R1: x > 1 && x < 3", 3, 23, "`&&`", "and"),
        ("param x: int\nrequirement R1: x > 1 || x < 3", 3, 23, "`||`", "or"),
        ("param x: int\nrequirement R1: !x", 3, 17, "`!`", "not"),
        ("param if: int", 2, 7, "reserved word", "another name"),
        ("function f(result: int) -> int", 2, 12, "reserved word", "another name"),
        # A clause keyword where an operand belongs is misplaced, not a bad name.
        ("param a: bool\nparam b: bool\nrequirement R: a and never b", 4, 22,
         "`never C` is a whole clause", "not C"),
        ("param a: bool\nparam x: int\nrequirement R: x + if a then 1 else 2 > 0", 4, 20,
         "cannot be an operand without parentheses", "(if C then A else B)"),
        ("param a: bool\nparam b: bool\nrequirement R: a or when b, a", 4, 21,
         "`when C, S` is a whole clause", "implies"),
        ("param x: int\nrequirement R: x * exists i in 1..2: i > x", 3, 20,
         "quantifier cannot be an operand", "(exists i in A..B: P)"),
        ("param when: int", 2, 7, "reserved word", "another name"),
        ("requirement R1: (x > 1\nrequirement R2: x < 3", 2, 17, "never closed", "')'"),
        ("requirement R1: [x > 1", 2, 17, "never closed", "']'"),
        ("requirement R1: (x > 1]", 2, 23, "does not match", None),
        ("requirement R1: x > 1)", 2, 22, "unmatched", None),
        ("function f(x: int) -> int\n\trequires: x > 0", 3, 1, "tab", "spaces"),
        ("requirement R1: x >\t1", 2, 20, "tab", "spaces"),
        (
            "function f(x: int) -> int\n    requires: x > 0\n  ensures: result > 0",
            4,
            3,
            "unindent does not match",
            "indent",
        ),
        ("param x: int\n    param y: int", 3, 5, "unexpected indentation", "indented"),
        ("requirement R1: if a then 2 elif b then 1 else 0", 2, 29, "elif", "else if"),
        ("requirement R1: 1 if a else 0", 2, 19, "Python-style conditional", "if C then"),
        ("requirement R1: if a 1 else 0", 2, 22, "missing `then`", "if C then"),
        ("requirement R1: if a then 1", 2, 28, "missing `else`", "both branches"),
        ("requirement R1: when a b", 2, 24, None, "comma"),
        ("requirement R1: x shall be greater than 3", 2, 36, "incomplete `shall`", "at least"),
        ("requirement R1: forall i: i > 0", 2, 25, None, "forall i in LO..HI"),
        ('const S: str = "\\d"', 2, 17, "invalid escape", 'r"'),
        ('const S: str = "abc', 2, 16, "unterminated string", "close the string"),
        ("const R: real = 1.", 2, 17, "digits on both sides", "1.0"),
        ("const R: real = .25", 2, 17, "digits on both sides", "0.25"),
        ("requirement R1: x > 1e3", 2, 21, "scientific notation", "decimal"),
        ("function f(x: int) -> int\n    raises ValueError: x < 0", 3, 22, None, "when"),
        ("function f(x: int)", 2, 19, "missing return type", "->"),
        ("param x int", 2, 9, "missing ':'", "param x: int"),
        ("const X: int", 2, 13, "constant needs a value", "="),
        ("system S", 2, 9, None, "indented block"),
        ("enum E a, b", 2, 8, None, "enum Name {"),
        ('param x: int\nuse "a.req"', 3, 1, None, "directly after the header"),
        ("requirement R1 [source]: x > 1", 2, 23, None, "[key: value"),
        ("requirement R1: if a and b 1 else 0", 2, 28, "missing `then`", "if C then"),
        ("requirement R1: (if a 1 else 0)", 2, 23, "missing `then`", "if C then"),
        ("requirement R1: forall i in 0..3 i > 0", 2, 34, None, "forall i in LO..HI"),
        ("requirement R1: True", None, None, None, None),  # valid syntax: a name
    ],
)
def test_error_messages(
    body: str, line: int | None, column: int | None, message: str | None, hint: str | None
) -> None:
    text = HEADER + body + "\n"
    if line is None:
        parse_text(text)
        return
    e = err(text)
    assert (e.file, e.line, e.column) == ("bad.req", line, column), e.render()
    if message is not None:
        assert message in e.message, e.render()
    if hint is not None:
        assert e.hint is not None and hint in e.hint, e.render()
    rendered = e.render()
    assert rendered.startswith(f"bad.req:{line}:{column}: error: ")
    assert text.splitlines()[line - 1].replace("\t", "\t") in rendered
    caret_line = rendered.splitlines()[2]
    assert caret_line.rstrip().endswith("^") and len(caret_line) == 4 + column


def test_header_errors_have_hints() -> None:
    e = err("requirement R1: x > 1\n")
    assert (e.line, e.column) == (1, 1) and "spec NAME version N" in (e.hint or "")
    e = err("spec s version x\n")
    assert "positive integer" in (e.hint or "")


@pytest.mark.parametrize(
    ("example", "snippet"),
    [(ex, snippet) for ex in EXAMPLES for snippet in ex.snippets],
    ids=lambda v: repr(v)[:40] if isinstance(v, str) else "",
)
def test_every_known_bad_snippet_fails_with_its_hint(example: object, snippet: str) -> None:
    from derivative.grammar._hints import Example

    assert isinstance(example, Example)
    text = snippet if example.full_text else _HEADER + snippet
    assert _failure_point(text) is not None, "the snippet must fail in the parser"
    e = err(text)
    assert e.hint is not None
    if example.message is not None and e.hint == example.hint:
        assert e.message.startswith(example.message)


def test_table_is_built_once() -> None:
    assert example_table(_failure_point) is example_table(_failure_point)


def test_unclosed_bracket_mentioned_in_later_error() -> None:
    e = err(HEADER + "requirement R1: (x >\n  == 3\n")
    assert e.line == 3 and "not closed" in (e.hint or "")


def test_duplicate_declaration_names_both_places() -> None:
    e = err(HEADER + "param x: int\nconst x: int = 1\n")
    assert "declared twice" in e.message and (e.line, e.column) == (3, 7)
    ((label, where),) = e.related
    assert (where.line, where.column) == (2, 7) and "first" in label
    assert "note: first declared here" in e.render()


def test_duplicate_operation_in_system() -> None:
    e = err(HEADER + "system S\n    operation o() -> int\n    operation o() -> int\n")
    assert "declared twice" in e.message and e.line == 4
