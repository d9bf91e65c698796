"""Oracle for b-age-gate-leap-day, written from the summary and spec.req."""

import datetime
import random

from age_gate import is_adult


def expected(by, bm, bd, y, m, d):
    # adult when (y, m, d) >= 18th birthday; a 29 February birthday in a common year is 1 March
    if y - by > 18:
        return True
    if y - by < 18:
        return False
    return (m, d) >= (bm, bd)


def days_between(first, last):
    day = first
    while day <= last:
        yield day
        day += datetime.timedelta(days=1)


def test_around_an_ordinary_birthday():
    born = datetime.date(2008, 5, 17)
    for today in days_between(datetime.date(2026, 4, 1), datetime.date(2026, 7, 1)):
        got = is_adult(born.year, born.month, born.day, today.year, today.month, today.day)
        assert got is (today >= datetime.date(2026, 5, 17)), today


def test_leap_day_births_come_of_age_on_first_of_march():
    for by in (1904, 1952, 2000, 2004, 2008, 2012, 2080):
        y = by + 18
        for today in days_between(datetime.date(y, 2, 20), datetime.date(y, 3, 10)):
            got = is_adult(by, 2, 29, today.year, today.month, today.day)
            assert got is (today >= datetime.date(y, 3, 1)), (by, today)


def test_the_day_before_first_of_march():
    assert is_adult(2008, 2, 29, 2026, 2, 28) is False
    assert is_adult(2008, 2, 29, 2026, 3, 1) is True
    assert is_adult(2008, 2, 28, 2026, 2, 28) is True


def test_random_valid_dates():
    rng = random.Random(1234)
    first = datetime.date(1900, 1, 1).toordinal()
    last = datetime.date(2100, 12, 31).toordinal()
    for _ in range(2000):
        born = datetime.date.fromordinal(rng.randint(first, last))
        if rng.random() < 0.5:
            # near the 18th birthday
            target = born.toordinal() + 18 * 365 + rng.randint(-10, 15)
        else:
            target = rng.randint(born.toordinal(), last)
        if target < born.toordinal() or target > last:
            continue
        today = datetime.date.fromordinal(target)
        got = is_adult(born.year, born.month, born.day, today.year, today.month, today.day)
        assert type(got) is bool
        assert got == expected(born.year, born.month, born.day, today.year, today.month, today.day), (born, today)


def test_birth_after_today_is_an_error():
    cases = [(2030, 1, 1, 2026, 1, 1), (2026, 5, 18, 2026, 5, 17), (2026, 6, 1, 2026, 5, 31),
             (2100, 12, 31, 1900, 1, 1)]
    rng = random.Random(1234)
    first = datetime.date(1900, 1, 1).toordinal()
    last = datetime.date(2100, 12, 31).toordinal()
    for _ in range(300):
        a = rng.randint(first, last - 1)
        b = rng.randint(a + 1, min(last, a + rng.choice([1, 40, 80000])))
        today, born = datetime.date.fromordinal(a), datetime.date.fromordinal(b)
        cases.append((born.year, born.month, born.day, today.year, today.month, today.day))
    for args in cases:
        try:
            is_adult(*args)
            assert False, args
        except ValueError:
            pass
