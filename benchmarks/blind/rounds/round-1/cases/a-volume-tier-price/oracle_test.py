"""Oracle for a-volume-tier-price, written from the requirements only."""

import random

from volume_pricing import line_total_cents, unit_price_cents


def _unit(q):
    if q >= 50:
        return 850
    if q >= 10:
        return 1000
    return 1200


def test_unit_price_exhaustive():
    for q in range(1, 10001):
        got = unit_price_cents(q)
        assert type(got) is int and got == _unit(q), (q, got)


def test_line_total_exhaustive():
    for q in range(0, 10001):
        got = line_total_cents(q)
        want = 0 if q == 0 else q * _unit(q)
        assert type(got) is int and got == want, (q, got, want)
        assert got >= 0


def test_examples():
    assert unit_price_cents(9) == 1200
    assert unit_price_cents(10) == 1000
    assert unit_price_cents(50) == 850
    assert line_total_cents(0) == 0
    assert line_total_cents(9) == 10800
    assert line_total_cents(10) == 10000
    assert line_total_cents(50) == 42500


def test_negative_quantities_raise():
    rng = random.Random(1234)
    values = [-1, -2, -9, -10, -49, -50, -51, -10000] + [rng.randint(-10**9, -1) for _ in range(200)]
    for q in values:
        try:
            line_total_cents(q)
        except ValueError:
            pass
        else:
            assert False, q
