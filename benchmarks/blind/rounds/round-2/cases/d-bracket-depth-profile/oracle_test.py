"""Oracle for d-bracket-depth-profile, written from the summary and spec.req."""

import random

from bracket_depths import nesting_depths


def reference(formula):
    depths = [0]
    for ch in formula:
        step = 1 if ch == "(" else -1 if ch == ")" else 0
        depths.append(depths[-1] + step)
    return depths


def test_examples():
    assert nesting_depths("(a(b))") == [0, 1, 1, 2, 2, 1, 0]
    assert nesting_depths("") == [0]
    assert nesting_depths(")(") == [0, -1, 0]
    assert nesting_depths("[x]") == [0, 0, 0, 0]


def test_only_round_brackets_count():
    assert nesting_depths("{[<>]}") == [0] * 7
    assert nesting_depths("))") == [0, -1, -2]
    assert nesting_depths("\uff08\uff09") == [0, 0, 0]
    assert nesting_depths("f(x, g(y))") == [0, 0, 1, 1, 1, 1, 1, 2, 2, 1, 0]


def test_random():
    rng = random.Random(1234)
    for _ in range(3000):
        n = rng.randint(0, 80)
        alphabet = rng.choice(["()", "()a", "()[]{} x", "(((()", "()))"])
        formula = "".join(rng.choice(alphabet) for _ in range(n))
        got = nesting_depths(formula)
        assert type(got) is list
        assert all(type(v) is int for v in got)
        assert got == reference(formula), formula
