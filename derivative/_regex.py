"""The regular-expression subset of the requirement language (LANGUAGE.md §4).

A spec's regex (``str matching "RE"``, ``matches(s, "RE")``) always means a *full*
match, and it must mean the same thing to every reader: the Z3 encoding, the
Python evaluator and the generated tests.  So we do not hand the spec's text to
``re`` and hope; we parse it into a small immutable tree, reject everything that
is outside the documented subset *at its offset* (look-arounds, back-references,
flags, anchors, lazy or possessive quantifiers ...), and re-emit a Python pattern
from the tree that spells every class out in ASCII (``\\d`` becomes ``[0-9]``), so
``re.fullmatch(to_python(p), s)`` needs no flags and cannot drift with Python's
Unicode defaults.  The solver translates the same tree to Z3 regexes.

Accepted syntax (everything else is a ``RegexError``):

- literal characters up to U+2FFFF; ``]`` and ``}`` are literals as in Python;
- escapes of any ASCII punctuation (``\\.`` ``\\*`` ``\\\\`` ...), ``\\t \\n \\r \\f \\v``,
  ``\\xhh``, ``\\uhhhh``, ``\\Uhhhhhhhh``;
- ``.`` (any character but ``\\n``); ``\\d \\w \\s`` with ``re.ASCII`` meaning, also
  inside classes;
- classes ``[...]`` / ``[^...]`` with ranges; ``]`` first in a class and ``-`` first or
  last are literals (as in Python);
- ``*  +  ?  {m}  {m,n}  {m,}`` (counts at most ``MAX_REPEAT``), ``|``, groups ``( )``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeAlias

from derivative._errors import DerivativeError

MAX_CHAR = 0x2FFFF
"""The largest character a spec's strings and regexes may use (Z3's string alphabet)."""

MAX_REPEAT = 1000
"""The largest count in ``{m,n}``: larger loops blow up every back-end for no use."""

DIGIT: tuple[tuple[int, int], ...] = ((0x30, 0x39),)
WORD: tuple[tuple[int, int], ...] = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
SPACE: tuple[tuple[int, int], ...] = ((0x09, 0x0D), (0x20, 0x20))
"""ASCII meanings of ``\\d``, ``\\w`` and ``\\s`` (Python's ``re.ASCII``)."""


class RegexError(DerivativeError):
    """A pattern outside the supported subset; ``offset`` is 0-based into the pattern."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} (at offset {offset})")
        self.message = message
        self.offset = offset


# --------------------------------------------------------------------------- nodes


@dataclass(frozen=True)
class RNode:
    """Base of regex nodes."""


@dataclass(frozen=True)
class REmpty(RNode):
    """Matches only the empty string (an empty group or alternative)."""


@dataclass(frozen=True)
class RChar(RNode):
    """One literal character."""

    char: str


@dataclass(frozen=True)
class RAny(RNode):
    """``.``: any one character except ``\\n``."""


@dataclass(frozen=True)
class RClass(RNode):
    """A character class: sorted, disjoint, non-adjacent inclusive code-point ranges.

    ``negated`` means every character *not* in the ranges (including newline).
    """

    ranges: tuple[tuple[int, int], ...]
    negated: bool = False

    def contains(self, ch: str) -> bool:
        c = ord(ch)
        inside = any(lo <= c <= hi for lo, hi in self.ranges)
        return inside != self.negated


@dataclass(frozen=True)
class RConcat(RNode):
    items: tuple[RNode, ...]


@dataclass(frozen=True)
class RAlt(RNode):
    options: tuple[RNode, ...]


@dataclass(frozen=True)
class RRepeat(RNode):
    """``node`` repeated between ``min`` and ``max`` times (``max`` None: unbounded)."""

    node: RNode
    min: int
    max: int | None


Regex: TypeAlias = RNode


def normalize_ranges(
    ranges: list[tuple[int, int]] | tuple[tuple[int, int], ...],
) -> tuple[tuple[int, int], ...]:
    """Sort and merge overlapping or adjacent ranges, so equal sets have equal nodes."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


# --------------------------------------------------------------------------- parser

_CONTROL_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v"}
_CLASS_ESCAPES = {"d": DIGIT, "w": WORD, "s": SPACE}
_UNSUPPORTED_ESCAPES = {
    "b": "word boundaries (\\b) are not supported",
    "B": "word boundaries (\\B) are not supported",
    "A": "anchors (\\A) are not supported: a spec's regex always means a full match",
    "Z": "anchors (\\Z) are not supported: a spec's regex always means a full match",
    "z": "anchors (\\z) are not supported: a spec's regex always means a full match",
    "G": "\\G is not supported",
    "D": "\\D is not supported; write [^0-9]",
    "W": "\\W is not supported; write [^a-zA-Z0-9_]",
    "S": "\\S is not supported; write [^ \\t\\n\\r\\f\\v]",
    "p": "Unicode property classes (\\p) are not supported",
    "P": "Unicode property classes (\\P) are not supported",
    "N": "named characters (\\N{...}) are not supported; use \\uXXXX",
    "g": "back-references (\\g) are not supported",
    "k": "back-references (\\k) are not supported",
    "a": "\\a is not supported; use \\x07",
}
_HEX_LEN = {"x": 2, "u": 4, "U": 8}


class _Parser:
    """Recursive descent over the pattern text; every error carries its offset."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self, ahead: int = 0) -> str | None:
        i = self.pos + ahead
        return self.text[i] if i < len(self.text) else None

    def parse(self) -> RNode:
        for i, ch in enumerate(self.text):
            if ord(ch) > MAX_CHAR:
                raise RegexError(f"character U+{ord(ch):X} is beyond U+2FFFF", i)
        node = self.alternation()
        if self.pos < len(self.text):
            # Only an unmatched ')' stops an alternation early.
            raise RegexError("unbalanced parenthesis: ')' without '('", self.pos)
        return node

    def alternation(self) -> RNode:
        options = [self.concat()]
        while self.peek() == "|":
            self.pos += 1
            options.append(self.concat())
        return options[0] if len(options) == 1 else RAlt(tuple(options))

    def concat(self) -> RNode:
        items: list[RNode] = []
        while True:
            ch = self.peek()
            if ch is None or ch in "|)":
                break
            items.append(self.repeat())
        if not items:
            return REmpty()
        return items[0] if len(items) == 1 else RConcat(tuple(items))

    def repeat(self) -> RNode:
        node = self.atom()
        bounds = self.quantifier()
        if bounds is None:
            return node
        lo, hi = bounds
        nxt = self.peek()
        if nxt == "?":
            raise RegexError(
                "lazy quantifiers are not supported (a full match has one meaning)", self.pos
            )
        if nxt == "+":
            raise RegexError("possessive quantifiers are not supported", self.pos)
        if nxt is not None and (nxt in "*" or (nxt == "{" and self._quantifier_at(self.pos))):
            raise RegexError("multiple repeat: put the repeated part in a group ( )", self.pos)
        return RRepeat(node, lo, hi)

    def _quantifier_at(self, i: int) -> bool:
        return re.match(r"\{[0-9]*(,[0-9]*)?\}", self.text[i:]) is not None

    def quantifier(self) -> tuple[int, int | None] | None:
        ch = self.peek()
        if ch == "*":
            self.pos += 1
            return (0, None)
        if ch == "+":
            self.pos += 1
            return (1, None)
        if ch == "?":
            self.pos += 1
            return (0, 1)
        if ch == "{":
            start = self.pos
            m = re.match(r"\{([0-9]*)(?:(,)([0-9]*))?\}", self.text[start:])
            if m is None:
                raise RegexError("a literal '{' must be escaped as \\{", start)
            lo_text, comma, hi_text = m.group(1), m.group(2), m.group(3)
            if lo_text == "":
                if not comma:
                    raise RegexError("a literal '{' must be escaped as \\{", start)
                raise RegexError("a repeat count needs a lower bound: write {0,n}", start)
            lo = int(lo_text)
            hi: int | None = lo
            if comma:
                hi = int(hi_text) if hi_text else None
            if lo > MAX_REPEAT or (hi is not None and hi > MAX_REPEAT):
                raise RegexError(f"repeat counts above {MAX_REPEAT} are not supported", start)
            if hi is not None and hi < lo:
                raise RegexError(f"min repeat greater than max repeat: {{{lo},{hi}}}", start)
            self.pos = start + m.end()
            return (lo, hi)
        return None

    def atom(self) -> RNode:
        start = self.pos
        ch = self.text[start]
        if ch == "(":
            if self.peek(1) == "?":
                raise RegexError(
                    "'(?' extensions (look-arounds, named or non-capturing groups, flags) "
                    "are not supported; use a plain group ( )",
                    start,
                )
            self.pos += 1
            inner = self.alternation()
            if self.peek() != ")":
                raise RegexError("missing ')': unterminated group", start)
            self.pos += 1
            return inner
        if ch in "*+?":
            raise RegexError(f"nothing to repeat before '{ch}'", start)
        if ch == "{":
            if self._quantifier_at(start):
                raise RegexError("nothing to repeat before '{'", start)
            raise RegexError("a literal '{' must be escaped as \\{", start)
        if ch in "^$":
            raise RegexError(
                f"anchors ({ch}) are not supported: a spec's regex always means a full match; "
                f"write \\{ch} for the character",
                start,
            )
        if ch == ".":
            self.pos += 1
            return RAny()
        if ch == "[":
            return self.char_class()
        if ch == "\\":
            kind, value = self.escape(in_class=False)
            if kind == "class":
                assert isinstance(value, tuple)
                return RClass(value, False)
            assert isinstance(value, str)
            return RChar(value)
        self.pos += 1
        return RChar(ch)

    def escape(self, in_class: bool) -> tuple[str, str | tuple[tuple[int, int], ...]]:
        """Read an escape at ``self.pos``: ('char', c) or ('class', ranges)."""
        start = self.pos
        ch = self.peek(1)
        if ch is None:
            raise RegexError("the pattern ends with a lone backslash", start)
        self.pos += 2
        if ch in _CLASS_ESCAPES:
            return ("class", _CLASS_ESCAPES[ch])
        if ch in _CONTROL_ESCAPES:
            return ("char", _CONTROL_ESCAPES[ch])
        if ch in _HEX_LEN:
            n = _HEX_LEN[ch]
            digits = self.text[self.pos : self.pos + n]
            if len(digits) != n or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise RegexError(f"\\{ch} needs exactly {n} hex digits", start)
            self.pos += n
            code = int(digits, 16)
            if code > MAX_CHAR:
                raise RegexError(f"character U+{code:X} is beyond U+2FFFF", start)
            return ("char", chr(code))
        if ch.isdigit():
            if ch == "0":
                raise RegexError("octal escapes are not supported; use \\xhh", start)
            raise RegexError("back-references are not supported", start)
        if ch == "b" and in_class:
            raise RegexError("\\b in a class is not supported; use \\x08", start)
        if ch in _UNSUPPORTED_ESCAPES:
            raise RegexError(_UNSUPPORTED_ESCAPES[ch], start)
        if ch.isascii() and ch.isalnum():
            raise RegexError(f"unknown escape \\{ch}", start)
        return ("char", ch)

    def char_class(self) -> RNode:
        start = self.pos
        self.pos += 1
        negated = False
        if self.peek() == "^":
            negated = True
            self.pos += 1
        first = self.pos
        ranges: list[tuple[int, int]] = []
        while True:
            ch = self.peek()
            if ch is None:
                raise RegexError("missing ']': unterminated character class", start)
            if ch == "]" and self.pos != first:
                self.pos += 1
                break
            item_at = self.pos
            lo_item = self.class_item()
            if self.peek() == "-" and self.peek(1) not in (None, "]"):
                self.pos += 1
                hi_item = self.class_item()
                if not isinstance(lo_item, str) or not isinstance(hi_item, str):
                    raise RegexError(
                        "bad character range: a class escape cannot be a bound", item_at
                    )
                if ord(hi_item) < ord(lo_item):
                    raise RegexError(
                        f"bad character range {lo_item}-{hi_item}: the end is below the start",
                        item_at,
                    )
                ranges.append((ord(lo_item), ord(hi_item)))
            elif isinstance(lo_item, str):
                ranges.append((ord(lo_item), ord(lo_item)))
            else:
                ranges.extend(lo_item)
        return RClass(normalize_ranges(ranges), negated)

    def class_item(self) -> str | tuple[tuple[int, int], ...]:
        at = self.pos
        ch = self.text[at]
        if ch == "\\":
            return self.escape(in_class=True)[1]
        if ch == "[":
            raise RegexError("a literal '[' inside a class must be escaped as \\[", at)
        self.pos += 1
        return ch


@lru_cache(maxsize=1024)
def parse(pattern: str) -> RNode:
    """The tree of ``pattern``; ``RegexError`` (with offset) outside the subset."""
    return _Parser(pattern).parse()


def check(pattern: str) -> None:
    """Raise ``RegexError`` if ``pattern`` is outside the supported subset."""
    parse(pattern)


# --------------------------------------------------------------------------- to Python


def _py_char(c: int) -> str:
    ch = chr(c)
    if ch.isascii() and (ch.isalnum() or ch == "_"):
        return ch
    if ch.isascii() and ch.isprintable():
        return "\\" + ch
    if not ch.isascii() and ch.isprintable() and not ch.isspace():
        return ch
    if c <= 0xFF:
        return f"\\x{c:02x}"
    if c <= 0xFFFF:
        return f"\\u{c:04x}"
    return f"\\U{c:08x}"


def _py_class(ranges: tuple[tuple[int, int], ...], negated: bool) -> str:
    if not ranges:
        # An empty class is never produced by the parser, but trees may be built by hand.
        return "[\\x00-\\U0010ffff]" if negated else "[^\\x00-\\U0010ffff]"
    parts = []
    for lo, hi in ranges:
        if lo == hi:
            parts.append(_py_char(lo))
        else:
            parts.append(f"{_py_char(lo)}-{_py_char(hi)}")
    return "[" + ("^" if negated else "") + "".join(parts) + "]"


def _py(node: RNode) -> tuple[str, int]:
    """Python text and its binding strength: 0 alternation, 1 concat, 2 atom."""
    if isinstance(node, REmpty):
        return ("", 1)
    if isinstance(node, RChar):
        return (_py_char(ord(node.char)), 2)
    if isinstance(node, RAny):
        return ("[^\\n]", 2)
    if isinstance(node, RClass):
        return (_py_class(node.ranges, node.negated), 2)
    if isinstance(node, RConcat):
        parts = []
        for item in node.items:
            text, strength = _py(item)
            parts.append(text if strength >= 1 else f"(?:{text})")
        return ("".join(parts), 1)
    if isinstance(node, RAlt):
        return ("|".join(_py(o)[0] for o in node.options), 0)
    if isinstance(node, RRepeat):
        text, strength = _py(node.node)
        if strength < 2 or text == "":
            text = f"(?:{text})"
        lo, hi = node.min, node.max
        if (lo, hi) == (0, None):
            q = "*"
        elif (lo, hi) == (1, None):
            q = "+"
        elif (lo, hi) == (0, 1):
            q = "?"
        elif hi is None:
            q = f"{{{lo},}}"
        elif lo == hi:
            q = f"{{{lo}}}"
        else:
            q = f"{{{lo},{hi}}}"
        # A repeat is an atom for concatenation but cannot take another quantifier.
        return (text + q, 1)
    raise TypeError(f"not a regex node: {node!r}")


def node_to_python(node: RNode) -> str:
    """A Python ``re`` pattern for ``node`` (explicit ASCII classes, no flags needed)."""
    return _py(node)[0]


@lru_cache(maxsize=1024)
def to_python(pattern: str) -> str:
    """An equivalent Python pattern for ``re.fullmatch`` without flags."""
    return node_to_python(parse(pattern))


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(to_python(pattern))


def fullmatch(pattern: str, s: str) -> bool:
    """Whether ``s`` fully matches the spec regex ``pattern`` (compiled once, cached)."""
    return _compiled(pattern).fullmatch(s) is not None


# --------------------------------------------------------------------------- back to spec syntax

_META = set(".^$*+?{}[]\\|()")


def _spec_char(c: int, in_class: bool) -> str:
    ch = chr(c)
    special = "\\]^-[" if in_class else _META
    if ch in special:
        return "\\" + ch
    if ch in "\t\n\r\f\v":
        return "\\" + "tnrfv"["\t\n\r\f\v".index(ch)]
    if ch.isprintable() and not (ch.isspace() and ch != " "):
        return ch
    if c <= 0xFF:
        return f"\\x{c:02x}"
    if c <= 0xFFFF:
        return f"\\u{c:04x}"
    return f"\\U{c:08x}"


def _spec(node: RNode) -> tuple[str, int]:
    if isinstance(node, REmpty):
        return ("", 1)
    if isinstance(node, RChar):
        return (_spec_char(ord(node.char), False), 2)
    if isinstance(node, RAny):
        return (".", 2)
    if isinstance(node, RClass):
        if not node.ranges:
            raise ValueError("an empty character class has no spec syntax")
        parts = []
        for lo, hi in node.ranges:
            if lo == hi:
                parts.append(_spec_char(lo, True))
            else:
                parts.append(f"{_spec_char(lo, True)}-{_spec_char(hi, True)}")
        return ("[" + ("^" if node.negated else "") + "".join(parts) + "]", 2)
    if isinstance(node, RConcat):
        out = []
        for item in node.items:
            text, strength = _spec(item)
            out.append(text if strength >= 1 else f"({text})")
        return ("".join(out), 1)
    if isinstance(node, RAlt):
        return ("|".join(_spec(o)[0] for o in node.options), 0)
    if isinstance(node, RRepeat):
        text, strength = _spec(node.node)
        if strength < 2 or text == "":
            text = f"({text})"
        m, n = node.min, node.max
        q = f"{{{m},}}" if n is None else (f"{{{m}}}" if m == n else f"{{{m},{n}}}")
        return (text + q, 1)
    raise TypeError(f"not a regex node: {node!r}")


def to_spec(node: RNode) -> str:
    """The tree written in the spec's own regex syntax (parses back to an equal match)."""
    return _spec(node)[0]
