"""Correct implementation of date_subscription_end/spec.req."""
import datetime


def end_date(start, days):
    return start + datetime.timedelta(days=days - 1)
