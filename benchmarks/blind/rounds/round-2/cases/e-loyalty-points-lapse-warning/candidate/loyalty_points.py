"""Loyalty points: how long points earned on a day can be spent."""

import datetime

VALID_DAYS = 365
WARN_DAYS = 30


def _check(earned, today):
    if today < earned:
        raise ValueError(f"points earned on {earned} cannot be looked at on {today}")


def last_usable_day(earned):
    return earned + datetime.timedelta(days=VALID_DAYS - 1)


def usable(earned, today):
    _check(earned, today)
    return today <= last_usable_day(earned)


def days_left(earned, today):
    _check(earned, today)
    return max(0, (last_usable_day(earned) - today).days + 1)


def lapse_warning(earned, today):
    _check(earned, today)
    until_last = (last_usable_day(earned) - today).days
    return 0 <= until_last <= WARN_DAYS
