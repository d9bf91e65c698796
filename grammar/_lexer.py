"""The token stream of the requirement language.

One compiled regular expression scans the text; a small loop around it adds
what a context-free grammar cannot say: the layout tokens (``NL`` at the end of
every logical line, ``INDENT``/``DEDENT`` for blocks, no newlines inside
brackets), reserved words as their own terminals, and tag values (``ticket-118``,
``v2.1``) lexed as ``TAGWORD`` only where the parser state accepts one.  This is
faster than Lark's own lexer plus an indentation post-lexer (measured by
``benchmarks/parse_scale.py``) and it can explain lexical mistakes precisely:
a tab, a bad dedent, an unclosed bracket, ``&&``, ``1.`` all get their own
message at their exact column.

Lexical errors are raised as ``LexError`` (no file name yet); the parser front
end turns them into ``SpecError`` with the file and source line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NoReturn

# Reserved words (docs/language.md §12) and `for` (generator expressions).
RESERVED: frozenset[str] = frozenset(
    (
        "spec", "version", "use", "enum", "exception", "const", "param", "requirement",
        "function", "system", "operation", "invariant", "requires", "ensures", "raises", "when",
        "example", "bind", "to", "from", "forall", "exists", "in", "if", "then", "else", "and",
        "or", "not", "implies", "iff", "true", "false", "none", "result", "shall", "be", "at",
        "least", "most", "more", "less", "than", "between", "never", "count", "where", "per",
        "matching", "tolerance", "for",
    )
)

KEYWORD_TYPES: dict[str, str] = {w: w.upper() for w in RESERVED}

OPERATOR_TYPES: dict[str, str] = {
    "==": "EQ",
    "!=": "NE",
    "<=": "LE",
    ">=": "GE",
    "<": "LT",
    ">": "GT",
    "=": "EQUAL",
    "->": "ARROW",
    "..": "DOTDOT",
    "//": "DSLASH",
    "**": "DSTAR",
    "+": "PLUS",
    "-": "MINUS",
    "*": "STAR",
    "/": "SLASH",
    "%": "PERCENT",
    "(": "LPAR",
    ")": "RPAR",
    "[": "LSQB",
    "]": "RSQB",
    "{": "LBRACE",
    "}": "RBRACE",
    ",": "COMMA",
    ":": "COLON",
    ".": "DOT",
}

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}

_MAX_NESTING = 200

# Leading spaces are folded into every match, so a space costs no loop iteration.
_MASTER = re.compile(
    r"""[ ]*(?:
     (?P<str>[rR]?(?:"(?:[^"\\\r\n]|\\.)*"|'(?:[^'\\\r\n]|\\.)*'))
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>==|!=|<=|>=|->|\.\.|//|\*\*|&&|\|\||[-+*/%<>=()\[\]{},:.!])
    |(?P<num>[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9][0-9_]*)?)
    |(?P<nl>\r\n|\n|\r)
    |(?P<comment>\#[^\r\n]*)
    |(?P<other>.)
    )""",
    re.VERBOSE | re.DOTALL,
)
_INDENT_RE = re.compile(r"[ \t\f]*")
_TAGWORD_RE = re.compile(r"[ ]*([A-Za-z0-9_][A-Za-z0-9_.\-]*)")
_DOT_OR_DIGIT = frozenset(".0123456789")
_NUMBER_OK = re.compile(r"[0-9]+(?:_[0-9]+)*")

_BAD_OPERATORS = {
    "&&": ("`&&` is not an operator of the language", "write `and`"),
    "||": ("`||` is not an operator of the language", "write `or`"),
    "!": ("`!` is not an operator of the language", "write `not` (and `!=` for 'not equal')"),
}


class Tok:
    """A token: what the parser driver and the transformer need, and nothing more.

    Lighter than ``lark.Token`` (a ``str`` subclass); it has the attributes Lark's
    own parser loop reads too, so the two loops can be cross-checked in tests.
    """

    __slots__ = ("column", "line", "start_pos", "type", "value")

    end_line = None
    end_column = None
    end_pos = None

    def __init__(self, type: str, value: str, start_pos: int, line: int, column: int) -> None:
        self.type = type
        self.value = value
        self.start_pos = start_pos
        self.line = line
        self.column = column

    def __repr__(self) -> str:
        return f"Tok({self.type!r}, {self.value!r}, {self.line}:{self.column})"


class LexError(Exception):
    """A lexical error at a line and column (1-based), before the file name is known."""

    def __init__(self, message: str, line: int, column: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint


def _check_number(text: str, line: int, col: int) -> str:
    """Classify a number token and reject malformed ones (``1__0``, ``007``)."""
    mantissa, _, exponent = text.replace("E", "e").partition("e")
    whole, dot, frac = mantissa.partition(".")
    for part in (whole, frac) if dot else (whole,):
        if not _NUMBER_OK.fullmatch(part):
            raise LexError(
                f"malformed number {text!r}",
                line,
                col,
                "underscores may only separate digits, as in 1_000",
            )
    if exponent:
        return "SCINUM"
    if dot:
        return "DECIMAL"
    if len(whole) > 1 and whole[0] == "0" and whole.strip("0_"):
        raise LexError(
            f"leading zeros are not allowed in the integer {text!r}",
            line,
            col,
            f"write {int(whole.replace('_', ''))}",
        )
    return "INT"


def tokenize(
    text: str,
    state_stack: list[Any] | None = None,
    states: dict[Any, dict[str, Any]] | None = None,
    brackets: list[tuple[str, int, int]] | None = None,
) -> Iterator[Tok]:
    """Yield the tokens of ``text``.

    ``state_stack`` (the parser's live stack) and ``states`` (its action table)
    enable tag-value lexing: after ``[...key:`` a ``TAGWORD`` is produced when the
    parser state accepts one.  Without them (tests, tools) tag values are lexed as
    ordinary tokens.  ``brackets``, if given, is the live stack of open brackets
    (char, line, column), so that a parse error can mention one still open.

    This is the parser's hot loop (``benchmarks/parse_scale.py``), so it stays one
    long function: everything a token or a line needs is inline, with the loop's
    state in locals; only what is rare (a change of indentation, a tag value, every
    error) is a call, which costs nothing measurable.  A call per line for the
    indentation measured 2-4% slower; calls per token (brackets, colons) would run
    far more often.  Neither would bring the loop near 80 lines.
    """
    master = _MASTER.match
    keyword = KEYWORD_TYPES.get
    operator = OPERATOR_TYPES.__getitem__
    new = Tok
    n = len(text)
    pos = 0
    line = 1
    line_start = 0
    indents = [0]
    if brackets is None:
        brackets = []
    line_has_tokens = False
    at_bol = True
    tag_check = False
    if text.startswith("\ufeff"):
        pos = 1
        line_start = 1
    while pos < n:
        if at_bol:
            at_bol = False
            m = _INDENT_RE.match(text, pos)
            assert m is not None  # the pattern matches the empty string
            end = m.end()
            c = text[end] if end < n else ""
            if c in ("\n", "\r", "#", ""):
                pos = end  # a blank or comment-only line: no layout tokens
                continue
            ind = m.group()
            if end - pos != indents[-1] or "\t" in ind or "\f" in ind:
                yield from _layout(ind, pos, end, line, line_start, indents)
            pos = end
            continue
        m = master(text, pos)
        if m is None:  # only spaces remain
            break
        kind = m.lastgroup or ""
        end = m.end()
        if kind == "nl":
            if not brackets:
                if line_has_tokens:
                    yield new("NL", "\n", end - 1, line, end - line_start)
                    line_has_tokens = False
                at_bol = True
            line += 1
            line_start = end
            pos = end
            continue
        if kind == "comment":
            pos = end
            continue
        value = m[kind]
        pos = end - len(value)
        col = pos - line_start + 1
        line_has_tokens = True
        if tag_check:
            tag_check = False
            tag = _tagword(text, pos, state_stack, states)
            if tag is not None:
                yield new("TAGWORD", tag[1], pos, line, col)
                pos = tag.end()
                continue
        if kind == "name":
            yield new(keyword(value, "NAME"), value, pos, line, col)
        elif kind == "op":
            if value in _BAD_OPERATORS:
                msg, hint = _BAD_OPERATORS[value]
                raise LexError(msg, line, col, hint)
            if value in _OPEN:
                if len(brackets) >= _MAX_NESTING:
                    raise LexError("brackets are nested too deeply", line, col)
                brackets.append((value, line, col))
            elif value in _CLOSE:
                if not brackets or _CLOSE[value] != brackets[-1][0]:
                    _bad_close(value, brackets, line, col)
                brackets.pop()
            elif value == ":" and brackets and brackets[-1][0] == "[":
                tag_check = True
            elif value == "." and end < n and text[end].isdigit():
                _no_leading_digits(text, end, line, col)
            yield new(operator(value), value, pos, line, col)
        elif kind == "str":
            yield new("STRING", value, pos, line, col)
        elif kind == "num":
            ttype = _check_number(value, line, col)
            if end < n and text[end] == "." and text[end + 1 : end + 2] not in _DOT_OR_DIGIT:
                _no_trailing_digits(value, line, col)
            yield new(ttype, value, pos, line, col)
        else:  # other
            _unexpected(value, line, col)
        pos = end
    if brackets:
        _unclosed(brackets[-1])
    col = pos - line_start + 1
    if line_has_tokens:
        yield new("NL", "", pos, line, col)
    while len(indents) > 1:
        indents.pop()
        yield new("DEDENT", "", pos, line, col)


def _layout(
    ind: str, pos: int, end: int, line: int, line_start: int, indents: list[int]
) -> Iterator[Tok]:
    """``INDENT``/``DEDENT`` for a line whose indentation ``ind`` differs from the block's."""
    if "\t" in ind or "\f" in ind:
        bad = pos + max(ind.find("\t"), ind.find("\f"))
        raise LexError(
            "indentation contains a tab",
            line,
            bad - line_start + 1,
            "indent with spaces only (4 per level is the convention)",
        )
    width = end - pos
    col = width + 1
    if width > indents[-1]:
        indents.append(width)
        yield Tok("INDENT", ind, end, line, col)
    elif width < indents[-1]:
        while width < indents[-1]:
            indents.pop()
            yield Tok("DEDENT", "", end, line, col)
        if width != indents[-1]:
            raise LexError(
                "unindent does not match any outer indentation level",
                line,
                col,
                "indent this line exactly as far as the block it belongs to",
            )


def _tagword(
    text: str, pos: int, state_stack: list[Any] | None, states: dict[Any, dict[str, Any]] | None
) -> re.Match[str] | None:
    """A tag value at ``pos`` (after ``[...key:``), where the parser state accepts one."""
    if states is not None and state_stack and "TAGWORD" in states[state_stack[-1]]:
        return _TAGWORD_RE.match(text, pos)
    return None


def _bad_close(value: str, brackets: list[tuple[str, int, int]], line: int, col: int) -> NoReturn:
    """A closing bracket with nothing, or something else, open (that one is closed)."""
    if not brackets:
        raise LexError(f"unmatched '{value}'", line, col)
    opening, oline, ocol = brackets.pop()
    raise LexError(
        f"closing '{value}' does not match opening '{opening}' at line {oline}, column {ocol}",
        line,
        col,
    )


def _no_leading_digits(text: str, end: int, line: int, col: int) -> NoReturn:
    """``.5``: a decimal point with no digit before it."""
    digits = _NUMBER_OK.match(text, end)
    raise LexError(
        "a decimal literal needs digits on both sides of the point",
        line,
        col,
        f"write 0.{digits.group() if digits else '5'}",
    )


def _no_trailing_digits(value: str, line: int, col: int) -> NoReturn:
    """``1.``: a decimal point with no digit after it."""
    raise LexError(
        "a decimal literal needs digits on both sides of the point",
        line,
        col,
        f"write {value}.0",
    )


def _unexpected(value: str, line: int, col: int) -> NoReturn:
    """A character no token starts with."""
    if value == "\t":
        raise LexError(
            "tab character outside a string",
            line,
            col,
            "separate and indent with spaces only",
        )
    if value in "\"'":
        raise LexError(
            "unterminated string literal",
            line,
            col,
            "close the string on the same line; write \\\" for a quote inside it",
        )
    if value == "\\":
        raise LexError(
            "unexpected backslash",
            line,
            col,
            "a line continues freely inside (), [] or {}; there is no backslash "
            "continuation",
        )
    raise LexError(f"unexpected character {value!r}", line, col)


def _unclosed(bracket: tuple[str, int, int]) -> NoReturn:
    """The end of the text with ``bracket`` still open."""
    opening, oline, ocol = bracket
    raise LexError(
        f"'{opening}' was never closed",
        oline,
        ocol,
        f"add the matching '{_OPEN[opening]}'",
    )


