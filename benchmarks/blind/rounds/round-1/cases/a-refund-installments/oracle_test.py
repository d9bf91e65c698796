"""Oracle for a-refund-installments, written from the requirements only."""

import random

from installments import installment_cents


def _plan(total, parts):
    return [installment_cents(total, parts, i) for i in range(parts)]


def _check(total, parts):
    plan = _plan(total, parts)
    low = total // parts
    for i, got in enumerate(plan):
        want = low + (1 if i < total % parts else 0)
        assert type(got) is int and got == want, (total, parts, i, got, want)
        assert low <= got <= low + 1
    assert sum(plan) == total, (total, parts, plan)


def test_examples():
    assert installment_cents(1000, 3, 0) == 334
    assert installment_cents(1000, 3, 1) == 333
    assert installment_cents(1000, 3, 2) == 333
    assert installment_cents(900, 3, 2) == 300
    assert installment_cents(-900, 3, 0) == -300


def test_small_amounts_both_signs():
    for total in range(-60, 61):
        for parts in range(1, 25):
            _check(total, parts)


def test_refunds():
    for total in (-1000, -1001, -999, -1, -23, -10000000, -9999999):
        for parts in (1, 2, 3, 4, 6, 7, 12, 24):
            _check(total, parts)


def test_random():
    rng = random.Random(1234)
    for _ in range(300):
        _check(rng.randint(-10000000, 10000000), rng.randint(1, 24))
