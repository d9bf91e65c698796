"""Oracle for e-parking-fee-grace-daily-cap, written from the requirements only."""

import math
import random
from fractions import Fraction

import parking_fee as m


def _expected_fee(minutes):
    # Independent formulation: walk the stay day by day.
    if minutes <= 15:
        return 0
    total = 0
    left = minutes
    while left >= 1440:
        total += 1800
        left -= 1440
    hours = 0
    while hours * 60 < left:
        hours += 1
    total += min(1800, hours * 250)
    return total


def _name(v):
    return getattr(v, "name", v)


def _visitor(name):
    enum_cls = getattr(m, "Visitor", None)
    return enum_cls[name] if enum_cls is not None else name


def test_grace_period_is_free():
    for minutes in range(0, 16):
        assert m.parking_fee(minutes) == 0, minutes


def test_started_hours_after_grace():
    assert m.parking_fee(16) == 250
    assert m.parking_fee(60) == 250
    assert m.parking_fee(61) == 500
    assert m.parking_fee(120) == 500
    assert m.parking_fee(121) == 750


def test_daily_cap_and_full_days():
    # 7h12m would be 8 started hours = 20.00, capped at 18.00
    assert m.parking_fee(7 * 60 + 12) == 1800
    assert m.parking_fee(1439) == 1800
    assert m.parking_fee(1440) == 1800
    assert m.parking_fee(1441) == 2050
    assert m.parking_fee(1500) == 2050
    assert m.parking_fee(2 * 1440) == 3600
    assert m.parking_fee(2 * 1440 + 10) == 3850


def test_exhaustive_first_three_days():
    for minutes in range(0, 3 * 1440 + 5):
        assert m.parking_fee(minutes) == _expected_fee(minutes), minutes


def test_random_long_stays():
    rng = random.Random(1234)
    for _ in range(2000):
        minutes = rng.randint(0, 90 * 1440)
        fee = m.parking_fee(minutes)
        assert fee == _expected_fee(minutes), minutes
        days_started = -(-minutes // 1440)
        assert 0 <= fee <= days_started * 1800


def test_negative_stay_is_an_error():
    for minutes in (-1, -5, -15, -1440, -10**6):
        try:
            m.parking_fee(minutes)
            assert False, minutes
        except ValueError:
            pass


def test_visitor_fees():
    assert m.visitor_fee(250, _visitor("patient_family")) == 130
    assert m.visitor_fee(1800, _visitor("patient_family")) == 900
    assert m.visitor_fee(0, _visitor("patient_family")) == 0
    assert m.visitor_fee(1, _visitor("patient_family")) == 10
    assert m.visitor_fee(20, _visitor("patient_family")) == 10
    assert m.visitor_fee(21, _visitor("patient_family")) == 20
    assert m.visitor_fee(1800, _visitor("staff")) == 0
    assert m.visitor_fee(2050, _visitor("standard")) == 2050
    for fee in range(0, 90 * 1800 + 1, 7):
        # half the fee, rounded up to whole 10 cents: the smallest multiple of 10 >= fee / 2
        expected = math.ceil(Fraction(fee, 2) / 10) * 10
        assert m.visitor_fee(fee, _visitor("patient_family")) == expected, fee
        assert m.visitor_fee(fee, _visitor("staff")) == 0
        assert m.visitor_fee(fee, _visitor("standard")) == fee
