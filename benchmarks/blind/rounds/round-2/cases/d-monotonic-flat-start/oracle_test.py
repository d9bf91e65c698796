"""Oracle for d-monotonic-flat-start, written from the summary and spec.req."""

import random

from calibration_table import is_monotonic


def reference(xs):
    pairs = list(zip(xs, xs[1:]))
    return all(a <= b for a, b in pairs) or all(a >= b for a, b in pairs)


def test_examples():
    assert is_monotonic([1, 2, 2, 5]) is True
    assert is_monotonic([9, 4, 4, 0]) is True
    assert is_monotonic([3, 1, 2]) is False
    assert is_monotonic([7, 7, 7]) is True
    assert is_monotonic([]) is True
    assert is_monotonic([42]) is True


def test_flat_starts_and_ends():
    assert is_monotonic([0, 0, -1]) is True
    assert is_monotonic([5, 5, 5, 6]) is True
    assert is_monotonic([5, 5, 5, 4, 4, 1]) is True
    assert is_monotonic([2, 2, 3, 1]) is False
    assert is_monotonic([2, 2, 1, 3]) is False
    assert is_monotonic([1, 2, 2]) is True
    assert is_monotonic([2, 1, 1]) is True
    assert is_monotonic([-3, -3]) is True


def test_exhaustive_small():
    values = [-1, 0, 1]
    lists = [[]]
    for _ in range(5):
        lists = lists + [xs + [v] for xs in lists if len(xs) == max(len(y) for y in lists) for v in values]
    assert len(lists) == 1 + 3 + 9 + 27 + 81 + 243
    for xs in lists:
        got = is_monotonic(list(xs))
        assert type(got) is bool
        assert got == reference(xs), xs


def test_random_long():
    rng = random.Random(1234)
    for _ in range(2000):
        n = rng.randint(0, 64)
        xs = [rng.randint(-5, 5) for _ in range(n)]
        if rng.random() < 0.5:
            xs.sort(reverse=rng.random() < 0.5)
        assert is_monotonic(list(xs)) == reference(xs), xs
