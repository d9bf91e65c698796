"""Whatever the input, only ``DerivativeError`` subclasses come out of the parser.

Two sources of bad input: arbitrary text (including the characters the lexer
treats specially), and valid specs mutated at the token or character level
(delete, duplicate, swap, replace), which reach deep parser states that random
text never does.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from derivative._errors import DerivativeError
from derivative.grammar import parse_text, tokenize

VALID = [
    '''spec password_policy version 3
"Password-reset and lockout rules."
tolerance 1e-6

enum Outcome { ok, rejected, expired }
exception TokenExpired(ValueError)
const MIN_LENGTH: int = 12
param lockout_minutes: int in -1..1440
param code: str matching r"[A-Z]{3}"
param xs: list[real]

requirement R1 [source: security-policy] "at least": lockout_minutes >= 3
requirement R3: when lockout_minutes > 4, lockout_minutes shall be between 2 and 9
requirement: never (forall i in 0..3: i in 0..lockout_minutes or xs[i] > 0.5)

function is_strong(password: str) -> bool
    requires P1: len(password) <= 128
    ensures S1 "length decides": result == (len(password) >= MIN_LENGTH)
    raises ValueError when not matches(password, "[a-z]+")
    example X1: is_strong("correct horse battery") == true
    example: is_strong("") raises ValueError

system TokenStore
    operation issue(user: str) -> str
        requires: len(user) >= 1
    operation reset(token: str from issue, password: str) -> Outcome
        ensures W1: (
            len(password) < MIN_LENGTH implies result == Outcome.rejected)
    operation forget(token: str from issue) -> none
    invariant single_use: count(reset where result == Outcome.ok, per token) <= 1
bind is_strong to "accounts.rules:strong"
''',
    '''spec d version 1
const D: date = date("2026-03-01")
function f(a: int, b: list[int]) -> int
    ensures: result == (if a > 0 then a else -a) + sum(b) // 2 % 3
    ensures: all(x != a for x in b) iff any(x in b for x in [1, 2])
''',
]

SPECIAL = "\n\t \\\"'#()[]{}:.,-=<>!&|rR0123456789abcdefz_\u00e9\U0001f600\x00\r\ufeff"


def _check(text: str) -> None:
    try:
        parse_text(text)
    except DerivativeError as exc:
        # The front end's last-resort wrapper would hide a bug; it must not be reached.
        assert "could not read the spec" not in str(exc), exc


@settings(max_examples=150)
@given(st.text(alphabet=st.sampled_from(list(SPECIAL)), max_size=80))
def test_random_text(text: str) -> None:
    _check(text)


@settings(max_examples=100)
@given(st.text(max_size=60))
def test_random_unicode_after_header(text: str) -> None:
    _check("spec s version 1\n" + text)


def _token_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the tokens of ``text`` (layout tokens left out)."""
    spans = []
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    for tok in tokenize(text):
        if tok.type in ("NL", "INDENT", "DEDENT"):
            continue
        start = starts[tok.line - 1] + tok.column - 1
        spans.append((start, start + len(tok.value)))
    return spans


SPANS = [_token_spans(t) for t in VALID]

MUTATION = st.sampled_from(["delete", "duplicate", "swap", "replace", "char"])


@settings(max_examples=250)
@given(
    st.integers(0, len(VALID) - 1),
    st.lists(st.tuples(MUTATION, st.integers(0, 10**6), st.integers(0, 10**6)), min_size=1,
             max_size=3),
    st.sampled_from(["", "(", ")", "]", "when", "shall", ":", ",", "\n", "    ", "==", "in",
                     "..", '"', "not", "then", "raises", "x", "1.5", "[", "-"]),
)
def test_mutated_specs(which: int, mutations: list[tuple[str, int, int]], filler: str) -> None:
    text = VALID[which]
    spans = SPANS[which]
    for kind, i, j in mutations:
        if kind == "char":
            p = i % (len(text) + 1)
            text = text[:p] + filler + text[p + (j % 3):]
            continue
        a0, a1 = spans[i % len(spans)]
        b0, b1 = spans[j % len(spans)]
        if a1 > len(text) or b1 > len(text):
            continue
        if kind == "delete":
            text = text[:a0] + text[a1:]
        elif kind == "duplicate":
            text = text[:a1] + " " + text[a0:a1] + text[a1:]
        elif kind == "replace":
            text = text[:a0] + filler + text[a1:]
        elif kind == "swap" and a1 <= b0:
            text = text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:]
    _check(text)


def test_valid_specs_parse() -> None:
    for text in VALID:
        assert parse_text(text).name
