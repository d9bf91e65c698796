"""The regex subset: what parses to which tree, what is refused where, and what
``fullmatch`` means on the cases that Python's defaults would get wrong."""

from __future__ import annotations

import re
import time

import pytest

from derivative._errors import DerivativeError
from derivative._regex import (
    DIGIT,
    SPACE,
    WORD,
    RAlt,
    RAny,
    RChar,
    RClass,
    RConcat,
    RegexError,
    REmpty,
    RRepeat,
    fullmatch,
    parse,
    to_python,
    to_spec,
)


def test_trees_of_the_basic_forms() -> None:
    assert parse("ab") == RConcat((RChar("a"), RChar("b")))
    assert parse("a|b|") == RAlt((RChar("a"), RChar("b"), REmpty()))
    assert parse(".") == RAny()
    assert parse("") == REmpty()
    assert parse("()") == REmpty()
    assert parse("(a)") == RChar("a")
    assert parse("a*") == RRepeat(RChar("a"), 0, None)
    assert parse("a+") == RRepeat(RChar("a"), 1, None)
    assert parse("a?") == RRepeat(RChar("a"), 0, 1)
    assert parse("a{3}") == RRepeat(RChar("a"), 3, 3)
    assert parse("a{2,5}") == RRepeat(RChar("a"), 2, 5)
    assert parse("a{2,}") == RRepeat(RChar("a"), 2, None)
    assert parse("(ab)+") == RRepeat(RConcat((RChar("a"), RChar("b"))), 1, None)


def test_classes_are_sorted_merged_ranges() -> None:
    assert parse("[z0-9a-c_b]") == RClass(((48, 57), (95, 95), (97, 99), (122, 122)))
    assert parse("[^a]") == RClass(((97, 97),), negated=True)
    assert parse(r"\d") == RClass(DIGIT)
    assert parse(r"\w") == RClass(WORD)
    assert parse(r"\s") == RClass(SPACE)
    assert parse(r"[\d\s]") == RClass(((9, 13), (32, 32), (48, 57)))
    # Python's literal placements: ']' first, '-' first or last.
    assert parse("[]a]") == RClass(((93, 93), (97, 97)))
    assert parse("[-a]") == parse("[a-]") == RClass(((45, 45), (97, 97)))
    assert parse(r"[\]\-\\]") == RClass(((45, 45), (92, 93)))


def test_escapes() -> None:
    assert parse(r"\.\*\(\)\[\{\|\\\^\$") == RConcat(tuple(RChar(c) for c in ".*()[{|\\^$"))
    assert parse(r"\t\n\x41\u00e9\U0001F600") == RConcat(
        (RChar("\t"), RChar("\n"), RChar("A"), RChar("é"), RChar("\U0001f600"))
    )
    assert parse("]}") == RConcat((RChar("]"), RChar("}")))


@pytest.mark.parametrize(
    ("pattern", "offset", "fragment"),
    [
        ("^abc", 0, "anchors"),
        ("abc$", 3, "anchors"),
        ("a(?=b)", 1, "'(?'"),
        ("(?!b)a", 0, "'(?'"),
        ("(?<=b)a", 0, "'(?'"),
        ("(?i)a", 0, "'(?'"),
        ("(?:a)", 0, "'(?'"),
        ("(?P<x>a)", 0, "'(?'"),
        (r"(a)\1", 3, "back-references"),
        (r"a\b", 1, "word boundaries"),
        (r"\Aa", 0, "anchors"),
        (r"a\Z", 1, "anchors"),
        ("a*?", 2, "lazy"),
        ("a+?", 2, "lazy"),
        ("a{1,2}?", 6, "lazy"),
        ("a*+", 2, "possessive"),
        ("a**", 2, "multiple repeat"),
        ("a{2}{3}", 4, "multiple repeat"),
        ("*a", 0, "nothing to repeat"),
        ("a|+", 2, "nothing to repeat"),
        ("{3}", 0, "nothing to repeat"),
        ("a{", 1, "escaped"),
        ("a{x}", 1, "escaped"),
        ("a{,3}", 1, "lower bound"),
        ("a{3,1}", 1, "min repeat greater"),
        ("a{1001}", 1, "above 1000"),
        ("[abc", 0, "unterminated character class"),
        ("x(ab", 1, "unterminated group"),
        ("ab)", 2, "unbalanced"),
        ("ab\\", 2, "lone backslash"),
        ("[z-a]", 1, "bad character range"),
        (r"[a-\d]", 1, "bad character range"),
        (r"[a[]", 2, "'['"),
        (r"\D", 0, "[^0-9]"),
        (r"\W", 0, "not supported"),
        (r"\S", 0, "not supported"),
        (r"\p{L}", 0, "property"),
        (r"\q", 0, "unknown escape"),
        (r"\0", 0, "octal"),
        (r"[\b]", 1, "\\x08"),
        (r"\x4", 0, "hex digits"),
        ("a\U00030000", 1, "U+2FFFF"),
        (r"\U00030000", 0, "U+2FFFF"),
    ],
)
def test_outside_the_subset_is_an_error_at_its_offset(
    pattern: str, offset: int, fragment: str
) -> None:
    with pytest.raises(RegexError) as info:
        parse(pattern)
    assert info.value.offset == offset
    assert fragment in info.value.message
    assert isinstance(info.value, DerivativeError)


def test_characters_up_to_u2ffff_are_allowed() -> None:
    assert parse("\U0002ffff") == RChar("\U0002ffff")
    assert fullmatch("[\U00020000-\U0002ffff]+", "\U00020000\U0002ffff")


def test_ascii_meaning_of_shorthand_classes() -> None:
    # Python's default (Unicode) \d, \w, \s would accept all of these.
    assert not fullmatch(r"\d", "٣")
    assert not fullmatch(r"\w", "é")
    assert not fullmatch(r"\s", "\u00a0")
    assert not fullmatch(r"[\w]", "é")
    assert fullmatch(r"\w+", "a_Z9")
    assert fullmatch(r"\s+", " \t\n\r\f\v")
    assert re.fullmatch(r"\d", "٣") is not None  # the trap this module avoids


def test_full_match_and_dot() -> None:
    assert fullmatch("[0-9]+", "123")
    assert not fullmatch("[0-9]+", "123a")
    assert not fullmatch("[0-9]+", "a123")
    assert not fullmatch("[0-9]+", "")
    assert fullmatch("a.c", "abc")
    assert not fullmatch("a.c", "a\nc")
    assert fullmatch("[^a]", "\n")  # a negated class does include newline
    assert fullmatch("ab|cd", "cd")
    assert not fullmatch("ab|cd", "abd")
    assert fullmatch("(ab|c){2}", "cab")
    assert fullmatch("a{2,}", "aaaa")
    assert not fullmatch("a{2,}", "a")


def test_to_python_is_flag_free_and_explicit() -> None:
    assert to_python(r"\d+") == "[0-9]+"
    assert to_python(r"\w") == "[0-9A-Z_a-z]"
    assert to_python(".") == "[^\\n]"
    assert to_python("(ab|c)*d") == "(?:ab|c)*d"
    assert to_python("a.b") == "a[^\\n]b"
    assert "\\" not in to_python("[a-z]")


def test_fullmatch_raises_for_bad_patterns() -> None:
    with pytest.raises(RegexError):
        fullmatch("^a", "a")


@pytest.mark.parametrize(
    "pattern", [r"[a-z0-9_]+", r"\d{3}-\d{4}", "(a|b|)*c?", r"[^\]\\-]x", r"\.\{\}", "[ -~]+"]
)
def test_to_spec_round_trips(pattern: str) -> None:
    assert parse(to_spec(parse(pattern))) == parse(pattern)


def test_fullmatch_is_linear_where_backtracking_is_exponential() -> None:
    # Python's re needs seconds for 27 characters here (and doubles with each one);
    # the judge matches strings that untrusted candidates chose.
    start = time.perf_counter()
    assert not fullmatch(r"(\w+\s?)*", "a" * 27 + "!")
    assert not fullmatch(r"(a|aa)+", "a" * 5000 + "b")
    assert fullmatch(r"(\w+\s?)*", "ab " * 2000)
    # about 0.1 s here; backtracking would need longer than the universe has for
    # 5,000 characters, so a wide margin still tells the two apart on a loaded machine
    assert time.perf_counter() - start < 20.0


def test_fullmatch_from_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    words = [("ab" * n) + ("!" if n % 3 == 0 else "") for n in range(200)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda w: fullmatch("(ab)*", w), words))
    assert got == [n % 3 != 0 or (n == 0 and False) for n in range(200)]
