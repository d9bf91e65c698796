"""Oracle for d-repeat-limit-last-run, written from the summary and spec.req."""

import random

from password_repeats import within_repeat_limit


def longest_run(text):
    best = 0
    run = 0
    for i, ch in enumerate(text):
        run = run + 1 if i > 0 and text[i - 1] == ch else 1
        best = max(best, run)
    return best


def test_examples():
    assert within_repeat_limit("aab", 2) is True
    assert within_repeat_limit("aaab", 2) is False
    assert within_repeat_limit("xxy", 1) is False
    assert within_repeat_limit("abab", 1) is True
    assert within_repeat_limit("", 1) is True
    assert within_repeat_limit("Aaa", 2) is True


def test_run_position_does_not_matter():
    for limit in range(1, 9):
        bad = "z" * (limit + 1)
        ok = "z" * limit
        for text in [bad, "ab" + bad, bad + "ab", "a" + bad + "b", "k" + bad, "k" + bad + "k"]:
            assert within_repeat_limit(text, limit) is False, (text, limit)
        for text in [ok, "ab" + ok, ok + "ab", "a" + ok + "b" + ok]:
            assert within_repeat_limit(text, limit) is True, (text, limit)


def test_random():
    rng = random.Random(1234)
    for _ in range(4000):
        limit = rng.randint(1, 8)
        n = rng.randint(0, 64)
        alphabet = rng.choice(["ab", "aA", "abc", "a1!", "aaab"])
        text = "".join(rng.choice(alphabet) for _ in range(n))
        got = within_repeat_limit(text, limit)
        assert type(got) is bool
        assert got == (longest_run(text) <= limit), (text, limit)
