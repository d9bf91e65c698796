"""Oracle for b-return-window-last-day, written from the summary and spec.req."""

import datetime
import random

from returns_window import can_return, return_deadline

FIRST = datetime.date(2015, 1, 1)
LAST = datetime.date(2099, 12, 31)


def test_deadline_is_thirty_days_after_delivery():
    rng = random.Random(1234)
    days = [FIRST, LAST - datetime.timedelta(days=30), datetime.date(2024, 1, 30), datetime.date(2026, 1, 31)]
    days += [FIRST + datetime.timedelta(days=rng.randint(0, 30000)) for _ in range(500)]
    for delivered in days:
        assert return_deadline(delivered) == delivered + datetime.timedelta(days=30), delivered
    assert return_deadline(datetime.date(2026, 1, 31)) == datetime.date(2026, 3, 2)


def test_every_day_of_the_window():
    for delivered in (datetime.date(2026, 3, 1), datetime.date(2024, 2, 10), datetime.date(2025, 12, 15)):
        for n in range(0, 45):
            requested = delivered + datetime.timedelta(days=n)
            assert can_return(delivered, requested) is (n <= 30), (delivered, n)


def test_the_thirtieth_day_is_still_accepted():
    delivered = datetime.date(2026, 3, 1)
    assert can_return(delivered, datetime.date(2026, 3, 31)) is True
    assert can_return(delivered, datetime.date(2026, 4, 1)) is False
    assert can_return(delivered, return_deadline(delivered)) is True


def test_random_requests():
    rng = random.Random(1234)
    for _ in range(1000):
        delivered = FIRST + datetime.timedelta(days=rng.randint(0, 30000))
        n = rng.choice([rng.randint(0, 40), rng.randint(0, 2000)])
        requested = delivered + datetime.timedelta(days=n)
        if requested > LAST:
            continue
        got = can_return(delivered, requested)
        assert type(got) is bool
        assert got == (n <= 30), (delivered, requested)


def test_request_before_delivery_is_an_error():
    rng = random.Random(1234)
    for _ in range(300):
        delivered = FIRST + datetime.timedelta(days=rng.randint(0, 30000))
        requested = delivered - datetime.timedelta(days=rng.choice([1, rng.randint(1, 500)]))
        try:
            can_return(delivered, requested)
            assert False, (delivered, requested)
        except ValueError:
            pass
