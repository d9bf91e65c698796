"""Subtly wrong: a one-day subscription ends the next day (the first day is not counted)."""
# expect-fail: E1
import datetime


def end_date(start, days):
    return start + datetime.timedelta(days=max(days - 1, 1))
