"""Friendly syntax-error messages, resolved from a table of known-bad snippets.

The technique is lark's ``match_examples``: each known mistake is written down as
a small bad spec; the first time an error needs explaining, every snippet is
parsed and the parser state and token at which it fails are recorded.  A real
error that fails in the same state on the same kind of token gets that
snippet's hint.  Entries marked ``any_token`` match the state whatever the token
(e.g. after a requirement's identifier only ``[``, a string or ``:`` may come).
A few mistakes are recognised by rule instead (a reserved word used as a name,
``=`` for ``==``, ``elif``, Python's ``x if c else y``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from derivative._record import record

from ._lexer import KEYWORD_TYPES, RESERVED

_HEADER = "spec s version 1\n"


@record
class Example:
    """A known mistake: its message (None keeps the generic one), hint and bad snippets."""

    message: str | None
    hint: str
    snippets: tuple[str, ...]
    any_token: bool = False
    full_text: bool = False  # the snippets include their own header


EXAMPLES: tuple[Example, ...] = (
    Example(
        "a spec file starts with its header",
        "write `spec NAME version N` on the first line",
        ("requirement R1: x > 1\n", "param x: int\n", "spec s\n", "spec s version\n"),
        any_token=True,
        full_text=True,
    ),
    Example(
        None,
        "the version is a positive integer: `spec NAME version 1`",
        ("spec s version x\n", "spec s version 1.5\n"),
        any_token=True,
        full_text=True,
    ),
    Example(
        "missing ':' before the condition",
        "write `requirement ID [tags] \"text\": CONDITION`, with a colon before the condition",
        (
            "requirement R1 x >= 3\n",
            "requirement x >= 3\n",
            "requirement R1 [a: b] x >= 3\n",
            'requirement R1 "t" x >= 3\n',
            'requirement R1 [a: b] "t" x >= 3\n',
        ),
        any_token=True,
    ),
    Example(
        "missing ':' before the condition",
        "write `requires ID: CONDITION` (and likewise ensures, example, invariant)",
        (
            "function f(x: int) -> int\n    requires x > 0\n",
            "function f(x: int) -> int\n    requires P1 x > 0\n",
            "function f(x: int) -> int\n    ensures result > 0\n",
            "function f(x: int) -> int\n    ensures S1 result > 0\n",
            "function f(x: int) -> int\n    example f(1) == 1\n",
            "function f(x: int) -> int\n    example X1 f(1) == 1\n",
            "system S\n    operation o() -> int\n    invariant c count(o) <= 1\n",
        ),
        any_token=True,
    ),
    Example(
        "missing condition",
        "write the condition after the colon, e.g. `requirement R1: x >= 3`",
        (
            "requirement R1:\n",
            "requirement:\n",
            "function f(x: int) -> int\n    requires:\n",
            "function f(x: int) -> int\n    ensures:\n",
            "function f(x: int) -> int\n    example:\n",
            "system S\n    operation o() -> int\n    invariant I:\n",
        ),
    ),
    Example(
        "missing condition",
        "write `raises ExcName when CONDITION`",
        ("function f(x: int) -> int\n    raises ValueError when\n",),
    ),
    Example(
        None,
        "a raises clause reads `raises ExcName [ID] [tags] [\"text\"] when CONDITION`",
        (
            "function f(x: int) -> int\n    raises ValueError: x < 0\n",
            "function f(x: int) -> int\n    raises ValueError if x < 0\n",
            "function f(x: int) -> int\n    raises ValueError x < 0\n",
            "function f(x: int) -> int\n    raises when x < 0\n",
        ),
        any_token=True,
    ),
    Example(
        "missing return type",
        "write `-> TYPE` after the parameter list, e.g. `function f(x: int) -> bool`",
        (
            "function f(x: int)\n",
            "function f(x: int): int\n",
            "system S\n    operation o(x: int)\n",
        ),
        any_token=True,
    ),
    Example(
        "missing ':' between a name and its type",
        "write `NAME: TYPE`, e.g. `param x: int`",
        (
            "param x int\n",
            "const X int = 1\n",
            "function f(x int) -> int\n",
        ),
        any_token=True,
    ),
    Example(
        "a constant needs a value",
        "write `const NAME: TYPE = VALUE`",
        ("const X: int\n", "const X: int 5\n"),
        any_token=True,
    ),
    Example(
        None,
        "`use` and `tolerance` lines come directly after the header (and description)",
        ('param x: int\nuse "a.req"\n', "param x: int\ntolerance 0.001\n"),
    ),
    Example(
        None,
        "a range is written `int in LO..HI`",
        ("param x: int in 0..\n", "param x: int in 0 to 5\n", "param x: int in 0\n"),
    ),
    Example(
        "missing `then`",
        "a conditional is written `if C then A else B`",
        ("requirement R: if x > 1 y > 2\n", "requirement R: if x > 1: y > 2\n"),
    ),
    Example(
        "missing `else`",
        "a conditional always has both branches: `if C then A else B`",
        ("requirement R: if x > 1 then y > 2\n",),
    ),
    Example(
        None,
        "`when C, S` needs a comma after the condition C",
        ("requirement R: when x > 1 y > 2\n", "requirement R: when x > 1 then y > 2\n"),
    ),
    Example(
        "incomplete `shall` phrase",
        "write `X shall be V`, `shall not be V`, `shall be at least V`, `at most V`, "
        "`more than V`, `less than V` or `between A and B`",
        (
            "requirement R: x shall 3\n",
            "requirement R: x shall be at 3\n",
            "requirement R: x shall be more 3\n",
            "requirement R: x shall be less 3\n",
            "requirement R: x shall be greater than 3\n",
            "requirement R: x shall be between 1 or 3\n",
        ),
    ),
    Example(
        None,
        "a quantifier reads `forall i in LO..HI: CONDITION`",
        (
            "requirement R: forall i: i > 0\n",
            "requirement R: forall i in 0..3 i > 0\n",
            "requirement R: exists i in xs: i > 0\n",
        ),
    ),
    Example(
        None,
        "an enum is written `enum Name { a, b, c }`",
        ("enum E a, b\n", "enum E { a b }\n", "enum E (a, b)\n"),
    ),
    Example(
        None,
        "a system needs an indented block of `operation`s and `invariant`s",
        ("system S\nparam x: int\n", "system S\n"),
    ),
    Example(
        None,
        "tags are written `[key: value, key2: \"quoted value\"]`",
        ("requirement R1 [source]: x > 1\n", "requirement R1 [source = x]: x > 1\n"),
    ),
)


def _expected_str(expected: set[str]) -> str:
    names = set(expected) - {"$END"}
    parts: list[str] = []
    if len(names & _EXPR_START) >= 6:
        parts.append("an expression")
        names -= _EXPR_START
    if len(names & _BINARY) >= 6:
        parts.append("an operator")
        names -= _BINARY
    for n in sorted(names, key=lambda n: (n not in KEYWORD_TYPES.values(), n)):
        parts.append(_TERMINAL_TEXT.get(n, f"`{n.lower()}`"))
    if "$END" in expected:
        parts.append("the end of the file")
    if not parts:
        return ""
    if len(parts) > 8:
        parts = [*parts[:8], "..."]
    return "; expected " + (parts[0] if len(parts) == 1 else "one of " + ", ".join(parts))


_EXPR_START = {
    "NAME",
    "INT",
    "DECIMAL",
    "STRING",
    "TRUE",
    "FALSE",
    "RESULT",
    "LPAR",
    "LSQB",
    "MINUS",
    "NOT",
    "IF",
    "FORALL",
    "EXISTS",
    "COUNT",
    "NONE",
    "LBRACE",
}
_BINARY = {
    "PLUS",
    "MINUS",
    "STAR",
    "SLASH",
    "DSLASH",
    "DSTAR",
    "PERCENT",
    "EQ",
    "NE",
    "LT",
    "LE",
    "GT",
    "GE",
    "IN",
    "NOT",
    "AND",
    "OR",
    "IMPLIES",
    "IFF",
    "LSQB",
}

_TERMINAL_TEXT = {
    "NAME": "a name",
    "INT": "an integer",
    "DECIMAL": "a decimal",
    "SCINUM": "a number",
    "STRING": "a string",
    "TAGWORD": "a tag value",
    "NL": "the end of the line",
    "INDENT": "an indented block",
    "DEDENT": "the end of the block",
    "EQ": "`==`",
    "NE": "`!=`",
    "LE": "`<=`",
    "GE": "`>=`",
    "LT": "`<`",
    "GT": "`>`",
    "EQUAL": "`=`",
    "ARROW": "`->`",
    "DOTDOT": "`..`",
    "DSLASH": "`//`",
    "DSTAR": "`**`",
    "PLUS": "`+`",
    "MINUS": "`-`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "PERCENT": "`%`",
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "COMMA": "`,`",
    "COLON": "`:`",
    "DOT": "`.`",
}


def describe_token(tok: Any) -> str:
    t = tok.type
    if t == "$END":
        return "end of file"
    if t == "NL":
        return "end of line"
    if t == "INDENT":
        return "indentation"
    if t == "DEDENT":
        return "end of the indented block"
    if t in KEYWORD_TYPES.values():
        return f"keyword `{tok.value}`"
    if t == "NAME":
        return f"name `{tok.value}`"
    if t == "STRING":
        return f"string {tok.value}"
    if t in ("INT", "DECIMAL", "SCINUM"):
        return f"number {tok.value}"
    return f"`{tok.value}`"


FailurePoint = Callable[[str], "tuple[int, str] | None"]


class _Table:
    """Failure points of the known-bad snippets, computed once on first need."""

    def __init__(self, failure_point: FailurePoint) -> None:
        self.exact: dict[tuple[int, str], Example] = {}
        self.by_state: dict[int, Example] = {}
        self.failures: list[tuple[Example, str, tuple[int, str] | None]] = []
        for ex in EXAMPLES:
            for snippet in ex.snippets:
                text = snippet if ex.full_text else _HEADER + snippet
                point = failure_point(text)
                self.failures.append((ex, snippet, point))
                if point is None:
                    continue
                self.exact.setdefault(point, ex)
                if ex.any_token:
                    self.by_state.setdefault(point[0], ex)

    def match(self, state: int, token_type: str) -> Example | None:
        return self.exact.get((state, token_type)) or self.by_state.get(state)


_TABLE: _Table | None = None


def example_table(failure_point: FailurePoint) -> _Table:
    global _TABLE
    if _TABLE is None:
        _TABLE = _Table(failure_point)
    return _TABLE


_HEADS: dict[str, tuple[str, str]] = {
    "IF": (
        "a conditional `if C then A else B` cannot be an operand without parentheses",
        "write `(if C then A else B)`",
    ),
    "NEVER": (
        "`never C` is a whole clause and cannot be part of an expression",
        "write `not C` inside an expression, or start the clause with `never`",
    ),
    "WHEN": (
        "`when C, S` is a whole clause and cannot be part of an expression",
        "write `C implies S` inside an expression, or start the clause with `when`",
    ),
    "FORALL": (
        "a quantifier cannot be an operand without parentheses",
        "write `(forall i in A..B: P)`",
    ),
    "EXISTS": (
        "a quantifier cannot be an operand without parentheses",
        "write `(exists i in A..B: P)`",
    ),
}
"""Keywords that begin a clause or a low-precedence expression, met where an operand was
expected: the usual mistake is the place, not the word."""


def _by_rule(tok: Any, expected: frozenset[str]) -> tuple[str | None, str | None]:
    """Mistakes recognised from the token and what was expected."""
    t = tok.type
    value = str(tok.value)
    operand = "INT" in expected and "LPAR" in expected
    if operand and t in _HEADS and t not in expected:
        # An expression was expected and a keyword that starts a whole clause or a
        # conditional arrived: it is misplaced, not a name.
        return _HEADS[t]
    if value in RESERVED and t != "NAME" and "NAME" in expected and t not in expected:
        return (
            f"`{value}` is a reserved word and cannot be used as a name",
            f"choose another name, e.g. `{value}_`",
        )
    if t == "EQUAL" and "EQ" in expected:
        return ("`=` is not a comparison", "to compare, write `==`")
    if t == "NAME" and value == "elif":
        return (
            "there is no `elif`",
            "write `if A then X else if B then Y else Z`",
        )
    if t in ("ELSE", "THEN") and t not in expected:
        return (None, "a conditional is written `if C then A else B`")
    if t == "IF" and "IF" not in expected:
        return (
            "a Python-style conditional `X if C else Y` is not part of the language",
            "write `if C then X else Y`",
        )
    if t == "INDENT":
        return ("unexpected indentation", "only the clauses of a function, system or "
                "operation are indented")
    if t == "SCINUM":
        return (
            "scientific notation is only used for `tolerance`",
            "write a decimal such as 0.001",
        )
    if t == "NAME" and value in ("true", "false") and "TRUE" in expected:
        return (None, None)
    if t == "NAME" and value in ("True", "False", "None"):
        return (None, f"booleans are written in lower case: `{value.lower()}`")
    if t == "NAME" and value in ("lambda", "def", "return", "while", "is"):
        return (f"`{value}` is Python, not part of the requirement language", None)
    if t == "COLON" and "COLON" not in expected and "EQ" in expected:
        return (None, "a `:` only follows a clause's identifier, tags or text, or a "
                "quantifier's range")
    return (None, None)


_OPERAND_TOKENS = frozenset(
    {"NAME", "INT", "DECIMAL", "STRING", "TRUE", "FALSE", "RESULT", "RPAR", "RSQB", "DOT"}
)
_OPERATOR_TOKENS = frozenset(_BINARY - {"LSQB"} | {"DOTDOT"})

# The innermost unfinished construct, from the tokens still on the parser's stack.
_OPEN_CONSTRUCTS: dict[str, tuple[str | None, str, frozenset[str]]] = {
    "IF": ("missing `then`", "a conditional is written `if C then A else B`",
           frozenset({"THEN"})),
    "THEN": ("missing `else`", "a conditional always has both branches: `if C then A else B`",
             frozenset({"ELSE"})),
    "WHEN": (None, "`when C, S` needs a comma after the condition C", frozenset({"COMMA"})),
    "FORALL": (None, "a quantifier reads `forall i in LO..HI: CONDITION`", frozenset()),
    "EXISTS": (None, "a quantifier reads `exists i in LO..HI: CONDITION`", frozenset()),
}


def _open_construct(values: list[Any], tok: Any) -> tuple[str | None, str | None]:
    """A hint from the innermost keyword construct that the error leaves unfinished."""
    for v in reversed(values):
        t = getattr(v, "type", None)
        if t is None or t in _OPERAND_TOKENS or t in _OPERATOR_TOKENS:
            continue
        entry = _OPEN_CONSTRUCTS.get(t)
        if entry is None or tok.type in entry[2]:
            return (None, None)
        return (entry[0], entry[1])
    return (None, None)


def describe_unexpected(
    tok: Any,
    state: int,
    expected: frozenset[str],
    brackets: list[tuple[str, int, int]],
    failure_point: FailurePoint,
    values: list[Any] | None = None,
) -> tuple[str, str | None]:
    """Message and hint for a parse error at ``tok`` in parser state ``state``.

    ``values`` is the parser's value stack (tokens and built nodes) at the error.
    """
    generic = f"unexpected {describe_token(tok)}{_expected_str(set(expected))}"
    message, hint = _by_rule(tok, expected)
    if message is None and hint is None and values:
        message, hint = _open_construct(values, tok)
    if message is None and hint is None:
        ex = example_table(failure_point).match(state, tok.type)
        if ex is not None:
            message, hint = ex.message, ex.hint
    if message is None:
        message = generic
    elif tok.type != "$END":
        message = f"{message} (at {describe_token(tok)})"
    if brackets:
        opening, oline, ocol = brackets[-1]
        if (tok.line or 0) > oline:
            note = f"the '{opening}' at line {oline}, column {ocol} is not closed"
            hint = note if hint is None else f"{hint}; also, {note}"
    return message, hint
