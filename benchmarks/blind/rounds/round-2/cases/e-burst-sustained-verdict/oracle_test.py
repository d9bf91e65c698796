"""Oracle for e-burst-sustained-verdict, written from the requirements only."""

import random

import api_throttle as m


def _name(value):
    return getattr(value, "name", value)


def _want(second, minute):
    if minute >= 120:
        return "sustained_limited"
    if second >= 10:
        return "burst_limited"
    return "allow"


def test_verdict_exhaustive_small():
    for minute in range(0, 200):
        for second in range(0, min(minute, 30) + 1):
            assert _name(m.verdict(second, minute)) == _want(second, minute), (second, minute)


def test_verdict_boundaries():
    assert _name(m.verdict(9, 119)) == "allow"
    assert _name(m.verdict(10, 119)) == "burst_limited"
    assert _name(m.verdict(9, 120)) == "sustained_limited"
    assert _name(m.verdict(10, 120)) == "sustained_limited"
    assert _name(m.verdict(0, 0)) == "allow"
    assert _name(m.verdict(100000, 100000)) == "sustained_limited"


def test_retry_after():
    rng = random.Random(1234)
    for _ in range(3000):
        minute = rng.choice([rng.randint(0, 200), rng.randint(0, 100000)])
        second = rng.randint(0, min(minute, 40))
        age = rng.randint(0, 59)
        got = m.retry_after_s(second, minute, age)
        want = {"sustained_limited": 60 - age, "burst_limited": 1, "allow": 0}[_want(second, minute)]
        assert got == want, (second, minute, age)
    assert m.retry_after_s(3, 130, 45) == 15
    assert m.retry_after_s(12, 60, 30) == 1
    assert m.retry_after_s(0, 120, 0) == 60
    assert m.retry_after_s(0, 120, 59) == 1
    assert m.retry_after_s(9, 119, 10) == 0


def test_remaining():
    for minute in range(0, 300):
        assert m.remaining(minute) == max(0, 120 - minute), minute
    assert m.remaining(100000) == 0
