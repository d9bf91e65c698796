"""The parser: constructs of docs/language.md, precedence, desugaring, literals.

Expressions are compared through ``sx``, a fully parenthesised prefix rendering that
is independent of the pretty printer, so a precedence bug cannot hide behind a
matching printer bug.
"""

from __future__ import annotations

from typing import Any

import pytest

from derivative import _ast as A
from derivative._errors import DerivativeError, SpecError
from derivative.grammar import RESERVED, grammar_text, parse_text, tokenize
from derivative.grammar._parser import front

HEADER = "spec s version 1\n"


def sx(e: Any) -> str:
    """A prefix rendering of an expression tree (positions left out)."""
    k = e.kind
    if k == "int":
        return str(e.value)
    if k == "real":
        return f"real:{e.value}"
    if k == "str":
        return repr(e.value)
    if k == "bool":
        return "T" if e.value else "F"
    if k == "date":
        return f"date:{e.value}"
    if k == "name":
        return e.id
    if k == "result":
        return "result"
    if k == "enum_member":
        return f"{e.enum}.{e.member}"
    if k == "list":
        return "[" + " ".join(sx(i) for i in e.items) + "]"
    if k == "unary":
        return f"({e.op} {sx(e.operand)})"
    if k in ("binop", "boolop"):
        return f"({e.op} " + " ".join(sx(o) for o in e.operands) + ")"
    if k == "compare":
        inner = " ".join(
            x for pair in zip(map(sx, e.operands), [*e.ops, ""], strict=True) for x in pair if x
        )
        return f"(cmp {inner})"
    if k == "range":
        return f"{sx(e.lo)}..{sx(e.hi)}"
    if k == "if":
        return f"(if {sx(e.cond)} {sx(e.then)} {sx(e.orelse)})"
    if k == "quant":
        return f"({e.quantifier} {e.var} {sx(e.lo)} {sx(e.hi)} {sx(e.body)})"
    if k == "call":
        return f"({e.func} " + " ".join(sx(a) for a in e.args) + ")"
    if k == "index":
        return f"(idx {sx(e.base)} {sx(e.index)})"
    if k == "gen":
        return f"({e.func} {sx(e.body)} for {e.var} in {sx(e.iterable)})"
    if k == "count":
        where = sx(e.where) if e.where is not None else "-"
        return f"(count {e.op} {where} {e.per or '-'})"
    raise AssertionError(k)


def cond(src: str) -> Any:
    """The expression of ``requirement R: src``."""
    return parse_text(HEADER + f"requirement R: {src}\n").obligations[0].expr


def err(text: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        parse_text(text)
    return info.value


# ------------------------------------------------------------------ precedence


@pytest.mark.parametrize(
    ("src", "tree"),
    [
        ("a or b and c", "(or a (and b c))"),
        ("a and b or c", "(or (and a b) c)"),
        ("not a and b", "(and (not a) b)"),
        ("not a == b", "(not (cmp a == b))"),
        ("a implies b implies c", "(implies a (implies b c))"),
        ("a iff b iff c", "(iff (iff a b) c)"),
        ("a implies b iff c", "(iff (implies a b) c)"),
        ("a iff b implies c", "(iff a (implies b c))"),
        ("a or b implies c", "(implies (or a b) c)"),
        ("if a then b else c or d", "(if a b (or c d))"),
        ("if a then b else c implies d", "(implies (if a b c) d)"),
        ("if a then b else if c then d else e", "(if a b (if c d e))"),
        ("x + y * z", "(+ x (* y z))"),
        ("x - y - z", "(- (- x y) z)"),
        ("x * y // z % w", "(% (// (* x y) z) w)"),
        ("-x * y", "(* (- x) y)"),
        ("- -x", "(- (- x))"),
        ("-5", "(- 5)"),
        ("x - -5", "(- x (- 5))"),
        ("0 <= x < 10", "(cmp 0 <= x < 10)"),
        ("a == b == c", "(cmp a == b == c)"),
        ("(a < b) < c", "(cmp (cmp a < b) < c)"),
        ("x in 0..10", "(cmp x in 0..10)"),
        ("x not in 0..10", "(cmp x not in 0..10)"),
        ("x in xs", "(cmp x in xs)"),
        ("x + 1 in 0..n - 1", "(cmp (+ x 1) in 0..(- n 1))"),
        ("xs[i + 1][0]", "(idx (idx xs (+ i 1)) 0)"),
        ("f(x)[0]", "(idx (f x) 0)"),
        ("E.m == x", "(cmp E.m == x)"),
        ('len(s) > 3 and s[0] == "a"', "(and (cmp (len s) > 3) (cmp (idx s 0) == 'a'))"),
    ],
)
def test_precedence(src: str, tree: str) -> None:
    assert sx(cond(src)) == tree


@pytest.mark.parametrize(
    ("src", "tree"),
    [
        ("forall i in 0..n: p or q", "(forall i 0 n (or p q))"),
        ("exists i in 0..n: p implies q", "(exists i 0 n (implies p q))"),
        ("a and forall i in 0..3: b or c", "(and a (forall i 0 3 (or b c)))"),
        ("(forall i in 0..3: b) or c", "(or (forall i 0 3 b) c)"),
        ("a implies forall i in 0..3: b iff c", "(implies a (forall i 0 3 (iff b c)))"),
        ("not forall i in 0..3: b and c", "(not (forall i 0 3 (and b c)))"),
        ("if a then b else forall i in 0..1: c or d", "(if a b (forall i 0 1 (or c d)))"),
        (
            "forall i in 0..1: exists j in 0..i: i == j",
            "(forall i 0 1 (exists j 0 i (cmp i == j)))",
        ),
    ],
)
def test_quantifier_body_extends_right(src: str, tree: str) -> None:
    assert sx(cond(src)) == tree


# ------------------------------------------------------------------ structured English


@pytest.mark.parametrize(
    ("english", "core"),
    [
        ("x shall be 3", "x == 3"),
        ("x shall not be 3", "x != 3"),
        ("x shall be at least 3", "x >= 3"),
        ("x shall be at most 2 * y", "x <= 2 * y"),
        ("x shall be more than 3", "x > 3"),
        ("x shall be less than 3", "x < 3"),
        ("x shall be between 1 and y + 2", "1 <= x <= y + 2"),
        ("never x > 3", "not x > 3"),
        ("never x shall be 3", "not x == 3"),
        ("when x > 4, y shall be at least 2 * z", "x > 4 implies y >= 2 * z"),
        ("when a, b implies c", "a implies (b implies c)"),
        ("when a or b, never c", "a or b implies not c"),
        ("when a, when b, c", "a implies (b implies c)"),
        ("len(s) + 1 shall be E.m", "len(s) + 1 == E.m"),
        ("x and y shall be true", "(x and y) == true"),
    ],
)
def test_structured_english_desugars_to_core(english: str, core: str) -> None:
    assert cond(english).model_dump() == cond(core).model_dump()
    assert sx(cond(english)) == sx(cond(core))


def test_english_in_every_condition_clause() -> None:
    spec = HEADER + (
        "param p: int\n"
        "requirement R: p shall be at least 1\n"
        "function f(x: int) -> int\n"
        "    requires: x shall be between 0 and 9\n"
        "    ensures: when x > 3, result shall not be 0\n"
        "    raises ValueError when x shall be more than 8\n"
        "system S\n"
        "    operation o(k: int) -> int\n"
        "    invariant I: count(o, per k) shall be at most 1\n"
    )
    c = parse_text(spec)
    shown = {o.kind: sx(o.expr) for o in c.obligations}
    assert shown == {
        "requirement": "(cmp p >= 1)",
        "requires": "(cmp 0 <= x <= 9)",
        "ensures": "(implies (cmp x > 3) (cmp result != 0))",
        "raises": "(cmp x > 8)",
        "invariant": "(cmp (count o - k) <= 1)",
    }


def test_english_positions() -> None:
    e = cond("when x > 1, y shall be at least 2")
    assert (e.line, e.col) == (2, 16)
    assert (e.operands[1].line, e.operands[1].col) == (2, 28)
    n = cond("never x")
    assert isinstance(n, A.Unary) and (n.line, n.col) == (2, 16)


# ------------------------------------------------------------------ literals


def test_literals() -> None:
    assert sx(cond('[1, 2.50, "a", true, false, date("2026-03-01"), E.m]')) == (
        "[1 real:2.5 'a' T F date:2026-03-01 E.m]"
    )
    assert cond("1_000 == x").operands[0].value == 1000
    assert cond("007.250 == x").operands[0].value == "7.25"
    assert cond("2.0 == x").operands[0].value == "2.0"
    assert cond("[] == x").operands[0].items == ()
    assert sx(cond("[1, 2,] == x")) == sx(cond("[1, 2] == x"))


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        (r'"a\nb"', "a\nb"),
        (r'"tab\there"', "tab\there"),
        (r'"q\"q"', 'q"q'),
        (r"'it\'s'", "it's"),
        (r'"\\d"', "\\d"),
        (r'"\x41\u00e9\U0001F600"', "Aé\U0001f600"),
        (r'"\101"', "A"),
        (r'"\N{BULLET}"', "\u2022"),
        (r'r"\d+\."', "\\d+\\."),
        (r'R"[0-9]\s"', "[0-9]\\s"),
        (r'r"\""', '\\"'),
        ('"é 漢"', "é 漢"),
    ],
)
def test_string_escapes(literal: str, value: str) -> None:
    assert cond(f"s == {literal}").operands[1].value == value


def test_invalid_escape_suggests_raw_string() -> None:
    e = err(HEADER + 'const S: str = "[0-9]\\d+"\n')
    assert "invalid escape" in e.message and "\\d" in e.message
    assert e.hint is not None and 'r"' in e.hint
    assert (e.line, e.column) == (2, 22)


def test_characters_above_u2ffff_are_rejected() -> None:
    e = err(HEADER + 'const S: str = "a\\U000E0001"\n')
    assert "U+E0001" in e.message


@pytest.mark.parametrize(
    ("src", "column", "fragment"),
    [
        ('date("2026-02-30")', 22, "not a valid date"),
        ('date("2026-3-1")', 22, "YYYY-MM-DD"),
        ('date("0000-01-01")', 22, "not a valid date"),
        ("date(x)", 17, "literal string"),
        ('date("2026-03-01", "x")', 17, "literal string"),
    ],
)
def test_bad_dates(src: str, column: int, fragment: str) -> None:
    e = err(HEADER + f"const D: date = {src}\n")
    assert fragment in e.message
    assert (e.line, e.column) == (2, column)


@pytest.mark.parametrize("bad", ["1.", ".5", "1._5", "1__0", "007", "10_"])
def test_malformed_numbers(bad: str) -> None:
    e = err(HEADER + f"const R: real = {bad}\n")
    assert e.line == 2 and e.column == 17


# ------------------------------------------------------------------ declarations and types


def test_declarations_and_types() -> None:
    c = parse_text(
        HEADER
        + "enum Color { red, green, blue, }\n"
        + "exception Bad\n"
        + "exception Worse(Bad)\n"
        + "const LO: int = -5\n"
        + 'const PATTERN: str = r"[a-z]+"\n'
        + "param a: int in -10..LO\n"
        + 'param b: str matching r"[A-Z]{3}"\n'
        + "param c: list[list[real]]\n"
        + "param d: date\n"
        + "param e: Color\n"
        + "param f: bool\n"
        + 'bind g to "pkg.mod:attr"\n'
    )
    d = {x.name: x for x in c.declarations}
    assert d["Color"].members == ("red", "green", "blue")
    assert d["Bad"].base == "Exception" and d["Worse"].base == "Bad"
    a_type = d["a"].type
    assert isinstance(a_type, A.IntType)
    assert sx(a_type.lo) == "(- 10)" and sx(a_type.hi) == "LO"
    assert d["b"].type.model_dump() == A.StrType(pattern="[A-Z]{3}").model_dump()
    assert d["c"].type.model_dump() == A.ListType(elem=A.ListType(elem=A.RealType())).model_dump()
    assert isinstance(d["d"].type, A.DateType)
    assert d["e"].type.model_dump() == A.NamedType(name="Color").model_dump()
    assert (d["e"].type.line, d["e"].type.col) == (11, 10)
    assert isinstance(d["f"].type, A.BoolType)
    assert d["g"].target == "pkg.mod:attr"
    assert (d["a"].line, d["a"].column, d["a"].file) == (7, 7, "<string>")


@pytest.mark.parametrize(
    ("decl", "fragment"),
    [
        ("param x: real in 0..1", "only `int` can have a range"),
        ('param x: int matching "a"', "only `str` can be refined"),
        ("param x: int[str]", "takes no type argument"),
        ("param x: list", "needs an element type"),
        ("function f(x: int from g) -> int", "only for operation parameters"),
        ("function f(x: int, x: int) -> int", "declared twice"),
        ("function f() -> none", "only an operation's result"),
        ("enum E { a, a }", "listed twice"),
        ('bind f to "no_colon"', "module:attribute"),
    ],
)
def test_declaration_errors(decl: str, fragment: str) -> None:
    assert fragment in err(HEADER + decl + "\n").message


def test_header_description_use_tolerance() -> None:
    c = parse_text('spec demo version 12\n"What it is."\ntolerance 1e-6\nparam x: int\n')
    assert (c.name, c.version, c.description) == ("demo", 12, "What it is.")
    assert c.tolerance == "0.000001"
    assert parse_text(HEADER + "tolerance 0.0010\n").tolerance == "0.001"
    assert parse_text(HEADER + "tolerance 2\n").tolerance == "2.0"
    assert parse_text(HEADER).description is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("spec s version 0\n", "positive"),
        (HEADER + "tolerance 0\n", "positive"),
        (HEADER + "tolerance 1e-3\ntolerance 1e-3\n", "set twice"),
        (HEADER + "param x: int\ntolerance 0.1\n", "unexpected"),
        ("param x: int\n", "header"),
        ("", "header"),
    ],
)
def test_header_errors(text: str, fragment: str) -> None:
    assert fragment in err(text).render()


# ------------------------------------------------------------------ obligations


def test_labels_tags_texts() -> None:
    c = parse_text(
        HEADER
        + 'requirement R1 [source: security-policy, ticket: "JIRA 118", v: v2.1, n: 7]'
        + ' "the text": true\n'
        + "requirement [k: v]: false\n"
        + 'requirement "only text": 1 == 1\n'
        + "requirement R2 []: 2 == 2\n"
    )
    r1, r2, r3, r4 = c.obligations
    assert r1.id == "R1" and not r1.generated_id
    assert r1.tags == {"source": "security-policy", "ticket": "JIRA 118", "v": "v2.1", "n": "7"}
    assert r1.text == "the text"
    assert r2.tags == {"k": "v"} and r2.generated_id and r2.id.startswith("requirement.")
    assert r3.text == "only text" and r3.tags == {}
    assert r4.id == "R2" and r4.tags == {}
    assert (r1.line, r1.column, r2.line) == (2, 1, 3)


def test_tag_values_may_look_like_keywords() -> None:
    c = parse_text(HEADER + "requirement R [severity: none, w: when, v: x-1, n: 2.5]: true\n")
    assert c.obligations[0].tags == {"severity": "none", "w": "when", "v": "x-1", "n": "2.5"}


def test_function_clauses_and_examples() -> None:
    c = parse_text(
        HEADER
        + "function f(a: int, b: str,) -> bool\n"
        + "    requires P: a >= 0\n"
        + "    ensures: result == (a > 0)\n"
        + '    raises ValueError R [k: v] "neg" when a < 0\n'
        + '    raises KeyError when b == ""\n'
        + '    example X: f(1, "a") == true\n'
        + '    example: f(-1, "a") raises ValueError\n'
    )
    (fn,) = c.functions()
    assert [p.name for p in fn.params] == ["a", "b"]
    kinds = [(o.kind, o.owner, o.exception) for o in c.obligations]
    assert kinds == [
        ("requires", "f", None),
        ("ensures", "f", None),
        ("raises", "f", "ValueError"),
        ("raises", "f", "KeyError"),
        ("example", "f", None),
        ("example", "f", "ValueError"),
    ]
    ex_raise = c.obligations[5]
    assert isinstance(ex_raise.expr, A.Call) and ex_raise.id.startswith("f.example.")
    assert c.obligations[3].id == "f.raises.KeyError"
    assert c.obligations[2].id == "R" and c.obligations[2].text == "neg"


@pytest.mark.parametrize(
    "body",
    ["example: 1 == f(1)", "example: f(1) != 2", "example: f(1)", "example: x raises E"],
)
def test_example_shape_is_checked(body: str) -> None:
    e = err(HEADER + f"function f(a: int) -> int\n    {body}\n")
    assert "example" in e.message or "call" in e.message


def test_system_operations_invariants() -> None:
    c = parse_text(
        HEADER
        + "enum Outcome { ok, no }\n"
        + "system Store\n"
        + "    operation issue(user: str) -> str\n"
        + "        requires: len(user) >= 1\n"
        + "    operation reset(token: str from issue, pw: str) -> Outcome\n"
        + "        ensures W: result == Outcome.ok\n"
        + "    operation forget(token: str from issue) -> none\n"
        + "    invariant once: count(reset where result == Outcome.ok, per token) <= 1\n"
        + "    invariant: count(issue) >= 0\n"
    )
    (sysd,) = c.systems()
    assert [op.qualname for op in sysd.operations] == ["Store.issue", "Store.reset", "Store.forget"]
    assert sysd.operations[1].params[0].from_op == "issue"
    assert isinstance(sysd.operations[2].returns, A.NoneType_)
    owners = [(o.kind, o.owner, o.id) for o in c.obligations]
    assert owners[1] == ("ensures", "Store.reset", "W")
    assert owners[0][:2] == ("requires", "Store.issue")
    assert owners[0][2].startswith("Store.issue.requires.")
    assert owners[2] == ("invariant", "Store", "once")
    assert owners[3][2].startswith("Store.invariant.")
    assert sx(c.obligations[2].expr) == "(cmp (count reset (cmp result == Outcome.ok) token) <= 1)"
    assert sx(c.obligations[3].expr) == "(cmp (count issue - -) >= 0)"


def test_generators_and_calls() -> None:
    assert sx(cond("all(x > 0 for x in xs)")) == "(all (cmp x > 0) for x in xs)"
    assert sx(cond("any(x in ys for x in xs + ys)")) == "(any (cmp x in ys) for x in (+ xs ys))"
    assert sx(cond("max(a, b, c,) > min(xs)")) == "(cmp (max a b c) > (min xs))"
    assert "only allowed in all" in err(HEADER + "requirement R: sum(x for x in xs) > 0\n").message


# ------------------------------------------------------------------ layout


def test_layout_continuation_comments_blank_lines() -> None:
    text = (
        "# leading comment\n\n"
        "spec s version 1   # trailing comment\n"
        "\n"
        "param a: int\n"
        "requirement R: (a\n"
        "      + 1   # inside brackets\n"
        "  ) shall be at most [1,\n"
        "2][0]\n"
        "function f(\n"
        "    x: int,\n"
        ") -> int\n"
        "\n"
        "        # an indented comment line\n"
        "  requires: x > 0\n"
        "\n"
        "  ensures: result > 0\n"
        "param b: int"
    )
    c = parse_text(text)
    assert sx(c.obligations[0].expr) == "(cmp (+ a 1) <= (idx [1 2] 0))"
    assert [o.kind for o in c.obligations] == ["requirement", "requires", "ensures"]
    assert [d.name for d in c.declarations] == ["a", "f", "b"]


def test_crlf_and_bom() -> None:
    c = parse_text("\ufeffspec s version 1\r\nparam a: int\r\nrequirement R: a > 1\r\n")
    assert c.obligations[0].line == 3


def test_nested_blocks_dedent_several_levels() -> None:
    c = parse_text(
        HEADER
        + "system S\n"
        + "    operation o() -> int\n"
        + "        ensures: result > 0\n"
        + "param p: int\n"
    )
    assert [d.name for d in c.declarations] == ["S", "p"]


def test_tokenizer_layout_tokens() -> None:
    toks = [t.type for t in tokenize("a\n  b\n\n  c\nd")]
    assert toks == ["NAME", "NL", "INDENT", "NAME", "NL", "NAME", "NL", "DEDENT", "NAME", "NL"]


# ------------------------------------------------------------------ reserved words, grammar


def test_reserved_words_match_the_grammar() -> None:
    grammar = grammar_text()
    for word in RESERVED:
        assert f'{word.upper()}: "{word}"' in grammar


@pytest.mark.parametrize("word", sorted(RESERVED))
def test_reserved_word_as_param_name(word: str) -> None:
    e = err(HEADER + f"param {word}: int\n")
    assert "reserved" in e.message and e.hint is not None
    assert (e.line, e.column) == (2, 7)


def test_driver_agrees_with_lark_parse() -> None:
    """The lean LALR driver and Lark's own parser loop build the same contract."""
    text = HEADER + (
        "enum E { a, b }\n"
        "param x: int in -1..9\n"
        "requirement R [t: v-1]: when x > 1, x shall be between 0 and 5\n"
        "function f(s: str) -> E\n"
        '    raises ValueError when not matches(s, r"[a-z]+")\n'
        '    ensures: forall i in 0..len(s) - 1: s[i] != " " or result == E.a\n'
        '    example: f("a") == E.a\n'
    )
    f = front()
    f.transformer.file = "<string>"
    ours = f.run(text)
    theirs = f.lark.parse(text)
    assert [c.expr for c in ours.clauses] == [c.expr for c in theirs.clauses]
    assert [(c.line, c.column, c.owner) for c in ours.clauses] == [
        (c.line, c.column, c.owner) for c in theirs.clauses
    ]
    assert ours.declarations == theirs.declarations


def test_grammar_is_cached() -> None:
    assert front() is front()


def test_only_spec_errors_escape() -> None:
    for text in ["\x00", "spec s version 1\n" + "(" * 500 + "\n", "\t", "spec", "\\"]:
        with pytest.raises(DerivativeError):
            parse_text(text)
