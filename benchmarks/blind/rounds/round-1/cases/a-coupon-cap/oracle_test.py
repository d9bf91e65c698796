"""Oracle for a-coupon-cap, written from the requirements only."""

import random

from coupons import coupon_discount_cents, price_after_coupon_cents


def _discount(subtotal, percent, cap):
    return min(subtotal * percent // 100, cap)


def _check(subtotal, percent, cap):
    want = _discount(subtotal, percent, cap)
    got = coupon_discount_cents(subtotal, percent, cap)
    assert type(got) is int and got == want, (subtotal, percent, cap, got, want)
    assert 0 <= got <= subtotal and got <= cap
    after = price_after_coupon_cents(subtotal, percent, cap)
    assert type(after) is int and after == subtotal - want, (subtotal, percent, cap, after)


def test_examples():
    assert coupon_discount_cents(5000, 20, 1500) == 1000
    assert coupon_discount_cents(10000, 20, 1500) == 1500
    assert coupon_discount_cents(999, 15, 1500) == 149
    assert price_after_coupon_cents(10000, 20, 1500) == 8500


def test_cap_reached_for_every_percent():
    # a large basket always gets the whole cap, whatever the percentage
    for percent in range(1, 101):
        for cap in (1, 99, 1000, 1500, 2500, 9999):
            _check(10000000, percent, cap)


def test_around_the_point_where_the_cap_starts():
    for percent in range(1, 101):
        for cap in (1500, 777, 3):
            edge = cap * 100 // percent
            for subtotal in range(max(0, edge - 3), edge + 104):
                _check(subtotal, percent, cap)


def test_small_exhaustive():
    for subtotal in range(0, 301):
        for percent in (1, 3, 7, 10, 15, 33, 50, 99, 100):
            for cap in (1, 2, 5, 10, 50, 1000):
                _check(subtotal, percent, cap)


def test_random():
    rng = random.Random(1234)
    for _ in range(3000):
        _check(rng.randint(0, 10000000), rng.randint(1, 100), rng.randint(1, 1000000))
