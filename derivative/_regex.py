"""The regular-expression subset of the requirement language (docs/language.md §7.8).

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

``fullmatch`` does not use ``re``: the strings it judges come from untrusted
candidates, and a backtracking engine takes exponential time on patterns such as
``(\\w+\\s?)*``.  It runs a lazily built DFA of Brzozowski derivatives of the tree
(linear in the string).  ``to_python`` stays for readers that need a Python pattern
(Hypothesis' ``from_regex``, generated test modules); the property tests hold the two,
and an independent reference matcher, to the same answers.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import TypeAlias

from derivative._errors import DerivativeError
from derivative._record import record

MAX_CHAR = 0x2FFFF
"""The largest character a spec's strings and regexes may use (Z3's string alphabet)."""

MAX_REPEAT = 1000
"""The largest count in ``{m,n}``: larger loops blow up every back-end for no use."""

MAX_GROUP_DEPTH = 50
"""The deepest nesting of groups ``( )``.  The parser and every reading of the tree (the
matcher, the Python pattern, the Z3 and SMT-LIB regexes, Hypothesis) recurse once or twice
per group level, and a group may add two tree levels (a repeat of a concatenation); real
patterns nest a handful of groups, and a hostile one is refused at its offset instead of
exhausting the stack."""

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


@record
class RNode:
    """Base of regex nodes."""


@record
class REmpty(RNode):
    """Matches only the empty string (an empty group or alternative)."""


@record
class RChar(RNode):
    """One literal character."""

    char: str


@record
class RAny(RNode):
    """``.``: any one character except ``\\n``."""


@record
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


@record
class RConcat(RNode):
    items: tuple[RNode, ...]


@record
class RAlt(RNode):
    options: tuple[RNode, ...]


@record
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
        self.depth = 0  # groups open at ``pos``

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
            if self.depth >= MAX_GROUP_DEPTH:
                raise RegexError(f"groups are nested more than {MAX_GROUP_DEPTH} deep", start)
            self.pos += 1
            self.depth += 1
            inner = self.alternation()
            self.depth -= 1
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


# --------------------------------------------------------------------------- matching

_MAX_CODE = 0x10FFFF
_NEWLINE = 0x0A


class _Matcher:
    """A lazily built DFA over Brzozowski derivatives: linear time in the string.

    Python's backtracking ``re`` takes exponential time on patterns such as
    ``(\\w+\\s?)*`` against ``"aaa...a!"``, and the strings we match come from untrusted
    candidates: 30 characters would stall the judge for minutes.  Here each state is a
    regex (hash-consed to an int, alternatives kept as a set, so the number of distinct
    states is finite), each step is one dictionary look-up once the transition is
    known, and a new transition costs one derivative.

    Terms are tuples whose children are state ids, so hashing them is shallow:
    ``("set", ranges)``, ``("eps",)``, ``("cat", a, b)``, ``("or", frozenset)``,
    ``("rep", a, lo, hi)``.  ``_NONE`` (the empty set) is state 0, ``_EPS`` state 1.
    """

    _NONE = 0
    _EPS = 1
    _MAX_TRANSITIONS = 200_000

    def __init__(self, node: RNode) -> None:
        self._lock = threading.Lock()
        self._terms: list[tuple[object, ...]] = []
        self._nullable: list[bool] = []
        self._index: dict[tuple[object, ...], int] = {}
        self._trans: dict[tuple[int, str], int] = {}
        self._intern(("set", ()), False)
        self._intern(("eps",), True)
        self.start = self._build(node)

    # ---------------------------------------------------------------- terms

    def _intern(self, term: tuple[object, ...], nullable: bool) -> int:
        found = self._index.get(term)
        if found is not None:
            return found
        self._terms.append(term)
        self._nullable.append(nullable)
        self._index[term] = len(self._terms) - 1
        return len(self._terms) - 1

    def _set(self, ranges: tuple[tuple[int, int], ...]) -> int:
        return self._NONE if not ranges else self._intern(("set", ranges), False)

    def _cat(self, a: int, b: int) -> int:
        if a == self._NONE or b == self._NONE:
            return self._NONE
        if a == self._EPS:
            return b
        if b == self._EPS:
            return a
        ta = self._terms[a]
        if ta[0] == "cat":  # keep concatenations right-nested: one spelling per language
            left, right = ta[1], ta[2]
            assert isinstance(left, int) and isinstance(right, int)
            return self._cat(left, self._cat(right, b))
        return self._intern(("cat", a, b), self._nullable[a] and self._nullable[b])

    def _or(self, items: Iterable[int]) -> int:
        flat: set[int] = set()
        for i in items:
            t = self._terms[i]
            if t[0] == "or":
                members = t[1]
                assert isinstance(members, frozenset)
                flat.update(members)
            elif i != self._NONE:
                flat.add(i)
        if not flat:
            return self._NONE
        if len(flat) == 1:
            return flat.pop()
        return self._intern(("or", frozenset(flat)), any(self._nullable[i] for i in flat))

    def _rep(self, a: int, lo: int, hi: int | None) -> int:
        if hi == 0 or a == self._EPS:
            return self._EPS
        if a == self._NONE:
            return self._EPS if lo == 0 else self._NONE
        if lo == 1 and hi == 1:
            return a
        return self._intern(("rep", a, lo, hi), lo == 0 or self._nullable[a])

    def _build(self, node: RNode) -> int:
        if isinstance(node, REmpty):
            return self._EPS
        if isinstance(node, RChar):
            c = ord(node.char)
            return self._set(((c, c),))
        if isinstance(node, RAny):
            return self._set(((0, _NEWLINE - 1), (_NEWLINE + 1, _MAX_CODE)))
        if isinstance(node, RClass):
            ranges = normalize_ranges(node.ranges)
            return self._set(_complement(ranges) if node.negated else ranges)
        if isinstance(node, RConcat):
            out = self._EPS
            for item in reversed(node.items):
                out = self._cat(self._build(item), out)
            return out
        if isinstance(node, RAlt):
            return self._or([self._build(o) for o in node.options])
        if isinstance(node, RRepeat):
            return self._rep(self._build(node.node), node.min, node.max)
        raise TypeError(f"not a regex node: {node!r}")

    # ---------------------------------------------------------------- derivatives

    def _deriv(self, state: int, ch: str) -> int:
        t = self._terms[state]
        kind = t[0]
        if kind == "set":
            c = ord(ch)
            ranges = t[1]
            assert isinstance(ranges, tuple)
            return self._EPS if any(lo <= c <= hi for lo, hi in ranges) else self._NONE
        if kind == "eps":
            return self._NONE
        if kind == "cat":
            a, b = t[1], t[2]
            assert isinstance(a, int) and isinstance(b, int)
            out = self._cat(self._deriv(a, ch), b)
            if self._nullable[a]:
                out = self._or((out, self._deriv(b, ch)))
            return out
        if kind == "or":
            members = t[1]
            assert isinstance(members, frozenset)
            return self._or([self._deriv(m, ch) for m in members])
        a, lo, hi = t[1], t[2], t[3]
        assert isinstance(a, int) and isinstance(lo, int)
        assert hi is None or isinstance(hi, int)
        # L(r{lo,hi})' = r' . r{lo-1,hi-1}, also when r is nullable (then r^j <= r^(k-1)).
        rest = self._rep(a, max(lo - 1, 0), None if hi is None else hi - 1)
        return self._cat(self._deriv(a, ch), rest)

    def size(self) -> int:
        """How many states have been built so far."""
        return len(self._terms)

    def fullmatch(self, s: str) -> bool:
        state = self.start
        trans = self._trans
        for ch in s:
            nxt = trans.get((state, ch))
            if nxt is None:
                with self._lock:
                    nxt = self._deriv(state, ch)
                    if len(trans) >= self._MAX_TRANSITIONS:
                        trans.clear()
                    trans[(state, ch)] = nxt
            state = nxt
            if state == self._NONE:
                return False
        return self._nullable[state]


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= _MAX_CODE:
        out.append((nxt, _MAX_CODE))
    return tuple(out)


_MATCHERS: dict[str, _Matcher] = {}
_MAX_STATES = 50_000
"""A matcher that has grown beyond this many states is replaced by a fresh one before
the next string (a thread still using the old one keeps a consistent object)."""


def _matcher(pattern: str) -> _Matcher:
    m = _MATCHERS.get(pattern)
    if m is None or m.size() > _MAX_STATES:
        m = _Matcher(parse(pattern))
        if len(_MATCHERS) >= 1024:
            _MATCHERS.clear()
        _MATCHERS[pattern] = m
    return m


def node_fullmatch(node: RNode, s: str) -> bool:
    """Whether ``s`` is in the language of ``node`` (a fresh matcher; not cached)."""
    return _Matcher(node).fullmatch(s)


def fullmatch(pattern: str, s: str) -> bool:
    """Whether ``s`` fully matches the spec regex ``pattern``.

    Linear in ``len(s)`` whatever the pattern (see ``_Matcher``); the matcher of a
    pattern is built once and cached.  Agrees with ``re.fullmatch(to_python(pattern),
    s)``, which the property tests check.
    """
    return _matcher(pattern).fullmatch(s)


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
