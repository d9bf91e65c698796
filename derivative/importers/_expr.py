"""Reading the condition languages of FRET and Hanfor, and writing them in derivative's.

FRET writes ``&``, ``|``, ``!``, ``=>``, ``<=>``, ``xor``, ``=`` and function calls such as
``persisted(3, p)``; Hanfor writes ``&&``, ``||``, ``!``, ``==>``, ``<==``, ``==``.  The two
languages overlap so much that one reader takes both (their union), and a requirement whose
condition it cannot read is listed as not translated, never guessed at.

``parse`` gives a small syntax tree (``_tree``); ``render`` writes it in derivative's
syntax with only the brackets the language's precedence needs (the timed past-time forms
are always bracketed, so their meaning never depends on where the timed parser puts them).
A construct with no counterpart raises ``Untranslatable`` with the reason, which the caller
records against the requirement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Final

from ._tree import (
    BECOMES,
    PAST_FORMS,
    Bin,
    Bool,
    Call,
    Name,
    Node,
    Num,
    Un,
    Untranslatable,
    calls_in,
    children,
)

__all__ = ["ATOM", "MAX_DEPTH", "MAX_NESTING", "duration", "parse", "render"]

# ------------------------------------------------------------------------------ reading

MAX_NESTING: Final = 40
"""The deepest nesting of brackets, negations and implications read (each level costs the
reader a dozen stack frames)."""

MAX_DEPTH: Final = 90
"""The deepest tree read: every later step (writing, typing) recurses over the tree, and
the language reads at most 100 levels (docs/language.md §7.2)."""

_TOKEN: Final = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_$][A-Za-z0-9_$.]*)"
    r"|(?P<op><==>|<==|<=>|<->|==>|=>|->|&&|\|\||==|!=|~=|<=|>=|[<>=!~&|+\-*/^%(),]))"
)

_EQUIV = {"<=>": "iff", "<->": "iff", "<==>": "iff"}
_IMPLY = {"=>": "implies", "->": "implies", "==>": "implies"}
_OR = {"|": "or", "||": "or", "or": "or"}
_AND = {"&": "and", "&&": "and", "and": "and"}
_NOT = {"!", "~", "not"}
_COMPARE = {"=": "==", "==": "==", "!=": "!=", "~=": "!=", "<": "<", "<=": "<=",
            ">": ">", ">=": ">="}
COMPARE_OPS: Final = frozenset(_COMPARE.values())
"""The comparison operators of a tree (``==``, ``!=``, ``<``, ...)."""
_ADD = {"+": "+", "-": "-"}
_MUL = {"*": "*", "/": "/", "%": "%", "mod": "%"}
_WORDS = {"and", "or", "not", "xor", "mod", "true", "false"}


def _shown(text: str) -> str:
    """A condition quoted in a reason: on one line, at most 80 characters."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= 80 else flat[:77] + "...")


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    stripped = text.rstrip()
    while pos < len(stripped):
        m = _TOKEN.match(stripped, pos)
        if m is None or m.end() == pos:
            bad = stripped[pos:].lstrip()[:1]
            raise Untranslatable(f"cannot read the condition {_shown(text)} (at {bad!r})")
        token = m.group("num") or m.group("name") or m.group("op")
        assert token is not None
        out.append(token.lower() if token.lower() in _WORDS else token)
        pos = m.end()
    return out


class _Reader:
    """A recursive-descent reader over the token list (precedence from loose to tight:
    equivalence, implication, or, xor, and, not, comparison, sum, product, minus, power)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0

    def nested(self, read: Callable[[], Node]) -> Node:
        """``read()`` one level deeper: brackets, ``!``, ``-``, the right of ``=>`` and a
        call's arguments nest, and past ``MAX_NESTING`` levels the reader stops (before
        Python's recursion limit could)."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.fail(f"nested deeper than {MAX_NESTING} levels")
        try:
            return read()
        finally:
            self.depth -= 1

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> str:
        tok = self.peek()
        if tok is None:
            raise self.fail("it ends too early")
        self.i += 1
        return tok

    def fail(self, why: str) -> Untranslatable:
        return Untranslatable(f"cannot read the condition {_shown(self.text)}: {why}")

    def expect(self, tok: str) -> None:
        got = self.take()
        if got != tok:
            raise self.fail(f"expected {tok!r}, found {got!r}")

    def left_assoc(self, ops: Mapping[str, str], sub: Callable[[], Node]) -> Node:
        node = sub()
        while self.peek() in ops:
            op = ops[self.take()]
            node = Bin(op, node, sub())
        return node

    def equiv(self) -> Node:
        return self.left_assoc(_EQUIV, self.imply)

    def imply(self) -> Node:
        left = self.disj()
        if self.peek() in _IMPLY:
            self.take()
            return Bin("implies", left, self.nested(self.imply))
        if self.peek() == "<==":  # Hanfor's reverse implication: a <== b is b ==> a
            self.take()
            return Bin("implies", self.nested(self.imply), left)
        return left

    def disj(self) -> Node:
        return self.left_assoc(_OR, self.xor)

    def xor(self) -> Node:
        return self.left_assoc({"xor": "xor"}, self.conj)

    def conj(self) -> Node:
        return self.left_assoc(_AND, self.neg)

    def neg(self) -> Node:
        if self.peek() in _NOT:
            self.take()
            return Un("not", self.nested(self.neg))
        return self.compare()

    def compare(self) -> Node:
        left = self.sum()
        if self.peek() in _COMPARE:
            op = _COMPARE[self.take()]
            left = Bin(op, left, self.sum())
            if self.peek() in _COMPARE:
                raise self.fail("a chain of comparisons is ambiguous: bracket it")
        return left

    def sum(self) -> Node:
        return self.left_assoc(_ADD, self.product)

    def product(self) -> Node:
        return self.left_assoc(_MUL, self.minus)

    def minus(self) -> Node:
        if self.peek() == "-":
            self.take()
            return Un("neg", self.nested(self.minus))
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        if self.peek() == "^":
            self.take()
            return Bin("**", base, self.nested(self.minus))
        return base

    def atom(self) -> Node:
        tok = self.take()
        if tok == "(":
            inner = self.nested(self.equiv)
            self.expect(")")
            return inner
        if tok in ("true", "false"):
            return Bool(tok == "true")
        if tok[0].isdigit() or tok[0] == ".":
            return Num(_decimal(tok))
        if re.fullmatch(r"[A-Za-z_$][\w$.]*", tok) and tok not in _WORDS:
            return self.call(tok) if self.peek() == "(" else Name(tok)
        raise self.fail(f"unexpected {tok!r}")

    def call(self, function: str) -> Node:
        self.expect("(")
        args: list[Node] = []
        if self.peek() != ")":
            args.append(self.nested(self.equiv))
            while self.peek() == ",":
                self.take()
                args.append(self.nested(self.equiv))
        self.expect(")")
        return Call(function, tuple(args))


def _decimal(tok: str) -> str:
    """A number in derivative's syntax: digits on both sides of a point, no exponent."""
    if re.fullmatch(r"\d+", tok):
        return str(int(tok))
    try:
        value = Decimal(tok)
    except InvalidOperation:  # pragma: no cover - the token pattern admits only numbers
        raise Untranslatable(f"cannot read the number {tok!r}") from None
    if value == value.to_integral_value() and "." not in tok and "e" not in tok.lower():
        return str(int(value))
    text = format(value, "f")
    if "." not in text:
        text += ".0"
    if text.startswith("."):
        text = "0" + text
    return text


def parse(text: str) -> Node:
    """The syntax tree of a FRET or Hanfor condition; ``Untranslatable`` when it cannot be
    read (the reason quotes the condition)."""
    if not text.strip():
        raise Untranslatable("an empty condition")
    reader = _Reader(text)
    node = reader.equiv()
    if reader.peek() is not None:
        raise reader.fail(f"unexpected {reader.peek()!r}")
    if _depth(node) > MAX_DEPTH:
        raise reader.fail(f"more than {MAX_DEPTH} levels of operators (a run of & or | "
                          "counts one level per operator here)")
    return node


def _depth(node: Node) -> int:
    """The depth of a tree, without recursion (the tree may be a chain of any length)."""
    deepest = 0
    stack: list[tuple[Node, int]] = [(node, 1)]
    while stack:
        n, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in children(n))
    return deepest


# ------------------------------------------------------------------------------ writing

_LEVEL: Final[dict[str, int]] = {
    "iff": 2, "implies": 3, "or": 5, "and": 6, "not": 7,
    "==": 8, "!=": 8, "<": 8, "<=": 8, ">": 8, ">=": 8, "xor": 8,
    "+": 9, "-": 9, "*": 10, "/": 10, "%": 10, "neg": 11, "**": 12,
}
ATOM: Final = 13


def duration(node: Node, what: str) -> int:
    """A non-negative integer literal (a number of steps); anything else is refused."""
    if isinstance(node, Num) and not node.is_real:
        return int(node.text)
    if isinstance(node, Un) and node.op == "neg":
        raise Untranslatable(f"the {what} is negative")
    raise Untranslatable(f"the {what} is not a whole number of steps")


def _bracket(text: str, level: int, need: int) -> str:
    return text if level >= need else f"({text})"


class _Writer:
    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names

    def write(self, node: Node, need: int) -> str:
        text, level = self.node(node)
        return _bracket(text, level, need)

    def node(self, node: Node) -> tuple[str, int]:
        if isinstance(node, Name):
            return self.names.get(node.name, node.name), ATOM
        if isinstance(node, Num):
            return node.text, ATOM
        if isinstance(node, Bool):
            return ("true" if node.value else "false"), ATOM
        if isinstance(node, Un):
            if node.op == "not":
                return "not " + self.write(node.operand, 7), 7
            return "-" + self.write(node.operand, 11), 11
        if isinstance(node, Bin):
            return self.binary(node)
        return self.call(node), ATOM

    def binary(self, node: Bin) -> tuple[str, int]:
        level = _LEVEL[node.op]
        if node.op in ("==", "!=", "xor") and _past_inside(node):
            # the timed layer compares no past form with == or !=: booleans, so iff
            same = f"{self.write(node.left, 3)} iff {self.write(node.right, 3)}"
            return (same, 2) if node.op == "==" else (f"not ({same})", 7)
        if node.op == "xor":  # two booleans differ
            left, right = self.write(node.left, 9), self.write(node.right, 9)
            return f"{left} != {right}", level
        if node.op == "**":
            if not (isinstance(node.right, Num) and not node.right.is_real):
                raise Untranslatable("a power whose exponent is not a whole-number literal")
            return f"{self.write(node.left, ATOM)} ** {node.right.text}", level
        if level == 8:
            left_need = right_need = 9
        elif node.op == "implies":
            left_need, right_need = level + 1, level
        elif node.op in ("and", "or"):
            left_need = right_need = level
        else:
            left_need, right_need = level, level + 1
        left, right = self.write(node.left, left_need), self.write(node.right, right_need)
        return f"{left} {node.op} {right}", level

    def call(self, node: Call) -> str:
        fn = node.function
        args = node.args
        if fn == BECOMES:  # made by the Hanfor patterns, never read from an export
            return f"({self.write(args[0], ATOM)} becomes true)"
        if fn == "preBool" and len(args) == 2 and isinstance(args[0], Bool):
            inner = self.write(args[1], ATOM)
            if args[0].value:  # true at step 0, then the previous value
                return f"(not (previously (not {inner})))"
            return f"(previously {inner})"
        if fn in ("persisted", "occurred") and len(args) == 2:
            steps = duration(args[0], f"step count of {fn}")
            inner = self.write(args[1], ATOM)
            form = "has held for" if fn == "persisted" else "occurred within"
            return f"({inner} {form} {steps} steps)"
        if fn in ("preBool", "persisted", "occurred"):
            raise Untranslatable(f"{fn} with these arguments has no counterpart "
                                 "(preBool needs a literal initial value)")
        raise Untranslatable(f"the function {fn} has no counterpart")


def _past_inside(node: Node) -> bool:
    return bool(calls_in(node) & set(PAST_FORMS))


def render(node: Node, names: Mapping[str, str], *, need: int = 0) -> str:
    """``node`` in derivative's syntax, names renamed through ``names`` (a name not in it is
    written as it is), bracketed as a whole when its top operator binds looser than
    ``need`` (``render(n, names, need=ATOM)`` is safe anywhere)."""
    return _Writer(names).write(node, need)
