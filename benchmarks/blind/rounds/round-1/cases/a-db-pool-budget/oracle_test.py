"""Oracle for a-db-pool-budget, written from the requirements only."""

import random

from db_pool import pool_size

MIN_POOL = 2
MAX_POOL = 50


def _expected(db_max, reserved, instances):
    """None means a ValueError is required."""
    if reserved < 0 or reserved >= db_max:
        return None
    share = (db_max - reserved) // instances
    if share < MIN_POOL:
        return None
    return min(MAX_POOL, share)


def _check(db_max, reserved, instances):
    want = _expected(db_max, reserved, instances)
    if want is None:
        try:
            pool_size(db_max, reserved, instances)
        except ValueError:
            return
        assert False, ("expected ValueError", db_max, reserved, instances)
    got = pool_size(db_max, reserved, instances)
    assert type(got) is int, (db_max, reserved, instances, got)
    assert got == want, (db_max, reserved, instances, got, want)
    assert MIN_POOL <= got <= MAX_POOL
    assert got * instances + reserved <= db_max


def test_examples():
    assert pool_size(500, 10, 12) == 40
    assert pool_size(500, 10, 4) == 50
    for args in [(100, 10, 60), (100, -1, 2)]:
        try:
            pool_size(*args)
        except ValueError:
            pass
        else:
            assert False, args


def test_small_exhaustive():
    for db_max in range(1, 41):
        for reserved in range(-2, 43):
            for instances in range(1, 25):
                _check(db_max, reserved, instances)


def test_boundaries_of_the_share():
    # exactly MIN_POOL per instance is fine, one connection less is not
    for instances in range(1, 200, 7):
        for reserved in (0, 1, 10, 99):
            db_max = reserved + MIN_POOL * instances
            _check(db_max, reserved, instances)
            _check(db_max - 1, reserved, instances)
            # the cap: exactly MAX_POOL, and one more
            _check(reserved + MAX_POOL * instances, reserved, instances)
            _check(reserved + (MAX_POOL + 1) * instances, reserved, instances)


def test_reserve_errors():
    for db_max in (1, 2, 500, 100000):
        _check(db_max, db_max, 1)
        _check(db_max, db_max + 1, 1)
        _check(db_max, -1, 1)
        _check(db_max, -100000, 3)


def test_random():
    rng = random.Random(1234)
    for _ in range(3000):
        db_max = rng.randint(1, 100000)
        reserved = rng.choice([rng.randint(-50, 50), rng.randint(0, db_max + 10)])
        instances = rng.randint(1, 1000)
        _check(db_max, reserved, instances)
