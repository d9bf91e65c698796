"""Oracle for a-worker-count, written from the requirements only."""

import random

from worker_pool import effective_workers

HARD_CAP = 64


def _check(requested, cores):
    if requested < 0:
        try:
            effective_workers(requested, cores)
        except ValueError:
            return
        assert False, ("expected ValueError", requested, cores)
    got = effective_workers(requested, cores)
    want = min(HARD_CAP, cores if requested == 0 else requested)
    assert type(got) is int and got == want, (requested, cores, got, want)
    assert 1 <= got <= HARD_CAP


def test_examples():
    assert effective_workers(0, 8) == 8
    assert effective_workers(12, 8) == 12
    assert effective_workers(200, 8) == 64
    assert effective_workers(0, 128) == 64


def test_negative_counts_are_errors():
    for cores in (1, 2, 8, 64, 512):
        for requested in (-1, -2, -8, -64, -65, -1000):
            _check(requested, cores)


def test_small_exhaustive():
    for requested in range(-3, 80):
        for cores in range(1, 80):
            _check(requested, cores)


def test_random():
    rng = random.Random(1234)
    for _ in range(2000):
        requested = rng.choice([rng.randint(-100, 200), rng.randint(-10**6, 10**6), 0])
        _check(requested, rng.randint(1, 512))
