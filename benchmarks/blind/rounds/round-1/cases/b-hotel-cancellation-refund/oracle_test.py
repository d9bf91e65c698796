"""Oracle for b-hotel-cancellation-refund, written from the summary and spec.req."""

import datetime
import random

from hotel_cancellation import refund_cents, refund_percent

FIRST = datetime.date(2000, 1, 1)
LAST = datetime.date(2099, 12, 31)


def expected_percent(checkin, cancelled_on):
    ahead = (checkin - cancelled_on).days
    if ahead >= 14:
        return 100
    if ahead >= 2:
        return 50
    return 0


def test_every_day_around_checkin():
    checkin = datetime.date(2026, 3, 1)
    for back in range(0, 40):
        day = checkin - datetime.timedelta(days=back)
        assert refund_percent(checkin, day) == expected_percent(checkin, day), (checkin, day)


def test_boundaries_exactly():
    checkin = datetime.date(2028, 2, 29)
    assert refund_percent(checkin, checkin - datetime.timedelta(days=14)) == 100
    assert refund_percent(checkin, checkin - datetime.timedelta(days=13)) == 50
    assert refund_percent(checkin, checkin - datetime.timedelta(days=2)) == 50
    assert refund_percent(checkin, checkin - datetime.timedelta(days=1)) == 0
    assert refund_percent(checkin, checkin) == 0


def test_random_pairs():
    rng = random.Random(1234)
    span = (LAST - FIRST).days
    for _ in range(800):
        cancelled = FIRST + datetime.timedelta(days=rng.randint(0, span))
        ahead = rng.choice([rng.randint(0, 20), rng.randint(0, 3000)])
        checkin = cancelled + datetime.timedelta(days=ahead)
        if checkin > LAST:
            continue
        got = refund_percent(checkin, cancelled)
        assert type(got) is int
        assert got == expected_percent(checkin, cancelled), (checkin, cancelled, got)


def test_cancelling_after_checkin_is_an_error():
    rng = random.Random(1234)
    for _ in range(300):
        checkin = FIRST + datetime.timedelta(days=rng.randint(0, 30000))
        cancelled = checkin + datetime.timedelta(days=rng.randint(1, 400))
        if cancelled > LAST:
            continue
        try:
            refund_percent(checkin, cancelled)
            assert False, (checkin, cancelled)
        except ValueError:
            pass
        try:
            refund_cents(1000, checkin, cancelled)
            assert False, (checkin, cancelled)
        except ValueError:
            pass


def test_range_edges():
    assert refund_percent(LAST, FIRST) == 100
    assert refund_percent(FIRST, FIRST) == 0
    assert refund_percent(LAST, LAST) == 0
    assert refund_cents(10_000_000, LAST, FIRST) == 10_000_000


def test_refund_cents_matches_policy():
    rng = random.Random(1234)
    checkin = datetime.date(2026, 7, 15)
    for _ in range(1000):
        price = rng.choice([0, 1, 2, 3, 99, 101, 12345, 10_000_000, rng.randint(0, 10_000_000)])
        cancelled = checkin - datetime.timedelta(days=rng.randint(0, 30))
        ahead = (checkin - cancelled).days
        if ahead >= 14:
            want = price
        elif ahead >= 2:
            want = price // 2
        else:
            want = 0
        got = refund_cents(price, checkin, cancelled)
        assert type(got) is int
        assert got == want, (price, cancelled, got)
        assert 0 <= got <= price


def test_examples():
    d = datetime.date
    assert refund_percent(d(2026, 7, 15), d(2026, 7, 1)) == 100
    assert refund_percent(d(2026, 7, 15), d(2026, 7, 2)) == 50
    assert refund_percent(d(2026, 7, 15), d(2026, 7, 14)) == 0
    assert refund_cents(12345, d(2026, 7, 15), d(2026, 7, 10)) == 6172
    assert refund_cents(12345, d(2026, 7, 15), d(2026, 7, 15)) == 0
