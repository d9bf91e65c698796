"""Every way of matching a spec regex gives the same answer.

``derivative._regex`` has two: ``fullmatch`` (its own linear-time DFA of derivatives)
and ``to_python`` (a pattern for Python's ``re``).  Here random regex trees are
matched against random strings by both and by a small reference matcher written
directly over the tree (plain derivatives, no hash-consing or caching), so a wrong
escape, a missing group, a class that Python reads differently or a simplification
bug in the DFA shows up as a disagreement.  Further properties check the spec text
itself against Python's ``re`` with ``re.ASCII`` (the subset is, by design, Python
syntax with the same meaning), a check from an independent direction.
"""

from __future__ import annotations

import re
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from derivative._regex import (
    RAlt,
    RAny,
    RChar,
    RClass,
    RConcat,
    RegexError,
    REmpty,
    RNode,
    RRepeat,
    fullmatch,
    node_fullmatch,
    node_to_python,
    normalize_ranges,
    parse,
    to_python,
    to_spec,
)

# --------------------------------------------------------------------------- reference matcher


class _Never(RNode):
    """The empty language (only the reference matcher needs it)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Never)

    def __hash__(self) -> int:
        return 7


NEVER = _Never()


def char_ok(node: RNode, ch: str) -> bool:
    if isinstance(node, RChar):
        return node.char == ch
    if isinstance(node, RAny):
        return ch != "\n"
    if isinstance(node, RClass):
        inside = any(lo <= ord(ch) <= hi for lo, hi in node.ranges)
        return inside != node.negated
    raise AssertionError(node)


@cache
def nullable(node: RNode) -> bool:
    if isinstance(node, (REmpty,)):
        return True
    if isinstance(node, (_Never, RChar, RAny, RClass)):
        return False
    if isinstance(node, RConcat):
        return all(nullable(i) for i in node.items)
    if isinstance(node, RAlt):
        return any(nullable(o) for o in node.options)
    if isinstance(node, RRepeat):
        return node.min == 0 or nullable(node.node)
    raise AssertionError(node)


def seq(a: RNode, b: RNode) -> RNode:
    if a == NEVER or b == NEVER:
        return NEVER
    if a == REmpty():
        return b
    if b == REmpty():
        return a
    return RConcat((a, b))


def alt(a: RNode, b: RNode) -> RNode:
    if a == NEVER:
        return b
    if b == NEVER or a == b:
        return a
    return RAlt((a, b))


@cache
def deriv(node: RNode, ch: str) -> RNode:
    if isinstance(node, (REmpty, _Never)):
        return NEVER
    if isinstance(node, (RChar, RAny, RClass)):
        return REmpty() if char_ok(node, ch) else NEVER
    if isinstance(node, RConcat):
        if not node.items:
            return NEVER
        head, rest_items = node.items[0], node.items[1:]
        rest: RNode = (
            RConcat(rest_items)
            if len(rest_items) > 1
            else (rest_items[0] if rest_items else REmpty())
        )
        out = seq(deriv(head, ch), rest)
        if nullable(head):
            out = alt(out, deriv(rest, ch))
        return out
    if isinstance(node, RAlt):
        out2: RNode = NEVER
        for o in node.options:
            out2 = alt(out2, deriv(o, ch))
        return out2
    if isinstance(node, RRepeat):
        if node.max == 0:
            return NEVER
        lo = max(node.min - 1, 0)
        hi = None if node.max is None else node.max - 1
        return seq(deriv(node.node, ch), RRepeat(node.node, lo, hi))
    raise AssertionError(node)


def ref_fullmatch(node: RNode, s: str) -> bool:
    for ch in s:
        node = deriv(node, ch)
        if node == NEVER:
            return False
    return nullable(node)


# --------------------------------------------------------------------------- strategies

ALPHABET = ["a", "b", "-", "\n", ".", "]", "\\", "^", "é", "\U00010400", " ", "0", "_"]
CODES = sorted({ord(c) for c in ALPHABET} | {0x2FFFF, 0x61 + 2})

chars = st.sampled_from(ALPHABET)


@st.composite
def classes(draw: st.DrawFn) -> RClass:
    raw = draw(
        st.lists(
            st.tuples(st.sampled_from(CODES), st.sampled_from(CODES)).map(
                lambda t: (min(t), max(t))
            ),
            min_size=1,
            max_size=3,
        )
    )
    return RClass(normalize_ranges(raw), draw(st.booleans()))


leaves: st.SearchStrategy[RNode] = st.one_of(
    chars.map(RChar), st.just(RAny()), classes(), st.just(REmpty())
)


def _extend(inner: st.SearchStrategy[RNode]) -> st.SearchStrategy[RNode]:
    bounds = st.integers(0, 3).flatmap(
        lambda lo: st.tuples(st.just(lo), st.one_of(st.none(), st.integers(lo, lo + 2)))
    )
    return st.one_of(
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: RConcat(tuple(xs))),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: RAlt(tuple(xs))),
        st.tuples(inner, bounds).map(lambda t: RRepeat(t[0], t[1][0], t[1][1])),
    )


MAX_EXAMPLES = 150
regexes = st.recursive(leaves, _extend, max_leaves=8)
strings = st.text(alphabet=st.sampled_from(ALPHABET), max_size=8)


# --------------------------------------------------------------------------- properties


@settings(max_examples=MAX_EXAMPLES)
@given(regexes, st.lists(strings, min_size=1, max_size=6))
def test_python_translation_agrees_with_reference(node: RNode, ss: list[str]) -> None:
    pattern = node_to_python(node)
    for s in ss:
        assert (re.fullmatch(pattern, s) is not None) == ref_fullmatch(node, s), (pattern, s)


@settings(max_examples=MAX_EXAMPLES)
@given(
    st.one_of(regexes, st.just(RClass((), False)), st.just(RClass((), True))),
    st.lists(strings, min_size=1, max_size=6),
)
def test_derivative_matcher_agrees_with_reference(node: RNode, ss: list[str]) -> None:
    """``fullmatch``'s own engine, on trees too (the empty class has no spec text)."""
    for s in ss:
        assert node_fullmatch(node, s) == ref_fullmatch(node, s), (node, s)


@settings(max_examples=MAX_EXAMPLES)
@given(regexes, st.lists(strings, min_size=1, max_size=6))
def test_fullmatch_on_spec_text_agrees_with_reference(node: RNode, ss: list[str]) -> None:
    text = to_spec(node)
    reparsed = parse(text)
    for s in ss:
        expected = ref_fullmatch(node, s)
        assert fullmatch(text, s) == expected, (text, to_python(text), s)
        assert (re.fullmatch(to_python(text), s) is not None) == expected, (text, s)
        assert ref_fullmatch(reparsed, s) == expected, (text, s)


@settings(max_examples=MAX_EXAMPLES)
@given(regexes, st.lists(strings, min_size=1, max_size=6))
def test_spec_text_means_what_python_ascii_means(node: RNode, ss: list[str]) -> None:
    text = to_spec(node)
    for s in ss:
        assert fullmatch(text, s) == (re.fullmatch(text, s, re.ASCII) is not None), (text, s)


pattern_texts = st.text(
    alphabet=st.sampled_from([*list("ab-]^[\\.*+?{}()|$,0123dwsDxu"), "\n", "é"]), max_size=10
)


@settings(max_examples=MAX_EXAMPLES)
@given(pattern_texts, st.lists(strings, max_size=4))
def test_accepted_text_means_what_python_means(text: str, ss: list[str]) -> None:
    """Any text either parses or raises RegexError at an offset inside it; text that
    parses means, under Python's ``re.ASCII``, exactly what ``fullmatch`` says."""
    try:
        parse(text)
    except RegexError as e:
        assert 0 <= e.offset < len(text)
        return
    for s in ss:
        assert fullmatch(text, s) == (re.fullmatch(text, s, re.ASCII) is not None), (text, s)
