"""Oracle for e-loyalty-points-lapse-warning, written from the requirements only."""

import datetime
import random

import loyalty_points as m

D = datetime.date


def _spendable_days(earned):
    return [earned + datetime.timedelta(days=i) for i in range(365)]


def test_last_usable_day():
    assert m.last_usable_day(D(2026, 1, 1)) == D(2026, 12, 31)
    assert m.last_usable_day(D(2027, 3, 1)) == D(2028, 2, 28)  # 2028 is a leap year
    assert m.last_usable_day(D(2024, 1, 1)) == D(2024, 12, 30)


def test_usable_and_days_left_around_one_year():
    rng = random.Random(1234)
    for _ in range(20):
        earned = D(2020, 1, 1) + datetime.timedelta(days=rng.randint(0, 4000))
        spendable = set(_spendable_days(earned))
        for offset in range(0, 400):
            today = earned + datetime.timedelta(days=offset)
            assert m.usable(earned, today) == (today in spendable), (earned, today)
            left = len([d for d in spendable if d >= today])
            assert m.days_left(earned, today) == left, (earned, today)


def test_lapse_warning_on_exactly_the_last_30_spendable_days():
    rng = random.Random(99)
    for _ in range(20):
        earned = D(2020, 1, 1) + datetime.timedelta(days=rng.randint(0, 4000))
        last_30 = set(_spendable_days(earned)[-30:])
        assert len(last_30) == 30
        for offset in range(0, 420):
            today = earned + datetime.timedelta(days=offset)
            assert m.lapse_warning(earned, today) == (today in last_30), (earned, today)


def test_named_days():
    earned = D(2026, 1, 1)
    assert m.lapse_warning(earned, D(2026, 12, 20)) is True
    assert m.lapse_warning(earned, D(2026, 12, 2)) is True
    assert m.lapse_warning(earned, D(2026, 12, 31)) is True
    assert m.lapse_warning(earned, D(2026, 12, 1)) is False
    assert m.lapse_warning(earned, D(2027, 1, 1)) is False
    assert m.days_left(earned, D(2026, 12, 2)) == 30
    assert m.days_left(earned, D(2027, 5, 1)) == 0


def test_today_before_earning_is_a_data_error():
    earned = D(2026, 5, 10)
    for back in (1, 2, 30, 400):
        today = earned - datetime.timedelta(days=back)
        for f in (m.usable, m.days_left, m.lapse_warning):
            try:
                f(earned, today)
                assert False, (f.__name__, today)
            except ValueError:
                pass
