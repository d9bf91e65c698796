"""Oracle for d-mean-floor-negative, written from the summary and spec.req."""

import random

from cold_store_mean import mean_floor


def test_examples():
    assert mean_floor([20, 25]) == 22
    assert mean_floor([-40, -20]) == -30
    assert mean_floor([-7]) == -7
    assert mean_floor([0, 0, 1]) == 0


def test_empty_batch_is_an_error():
    try:
        mean_floor([])
        assert False, "no ValueError"
    except ValueError:
        pass


def test_rounds_down_towards_minus_infinity():
    assert mean_floor([-2, -3]) == -3
    assert mean_floor([-1, 0]) == -1
    assert mean_floor([-1, 0, 0]) == -1
    assert mean_floor([-1000, 999]) == -1
    assert mean_floor([2, 3]) == 2
    assert mean_floor([1, 0, 0]) == 0


def test_random_batches():
    rng = random.Random(1234)
    for _ in range(4000):
        n = rng.randint(1, 50)
        lo = rng.choice([-1000, -50, -3, 0])
        hi = rng.choice([0, 3, 50, 1000])
        xs = [rng.randint(lo, hi) for _ in range(n)]
        got = mean_floor(list(xs))
        assert type(got) is int
        s = sum(xs)
        assert got * n <= s < (got + 1) * n, (xs, got)
