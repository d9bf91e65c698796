"""Oracle for a-free-shipping, written from the requirements only."""

import random

from shipping import shipping_cents


def _want(subtotal, kg):
    if subtotal >= 5000:
        return 0
    return 495 + 200 * max(0, kg - 5)


def _check(subtotal, kg):
    if subtotal < 0:
        try:
            shipping_cents(subtotal, kg)
        except ValueError:
            return
        assert False, ("expected ValueError", subtotal, kg)
    got = shipping_cents(subtotal, kg)
    assert type(got) is int and got == _want(subtotal, kg), (subtotal, kg, got)


def test_examples():
    assert shipping_cents(4999, 2) == 495
    assert shipping_cents(1000, 8) == 1095
    assert shipping_cents(12000, 30) == 0
    assert shipping_cents(0, 0) == 495


def test_threshold_is_inclusive():
    for kg in (0, 1, 5, 6, 30, 1000):
        _check(4998, kg)
        _check(4999, kg)
        _check(5000, kg)
        _check(5001, kg)


def test_weight_surcharge():
    for kg in range(0, 1001):
        _check(2500, kg)


def test_negative_subtotal():
    for subtotal in (-1, -495, -4999, -5000, -10**7):
        _check(subtotal, 3)


def test_random():
    rng = random.Random(1234)
    for _ in range(3000):
        subtotal = rng.choice([rng.randint(-100, 10000), rng.randint(4900, 5100), rng.randint(0, 10**7)])
        _check(subtotal, rng.randint(0, 1000))
