"""Scheduling of on-site maintenance on the next Sunday."""

import datetime

REFERENCE_SUNDAY = datetime.date(2026, 1, 4)


def maintenance_day(requested):
    days_to_sunday = (REFERENCE_SUNDAY - requested).days % 7
    return requested + datetime.timedelta(days=days_to_sunday)


def wait_days(requested, scheduled):
    return (scheduled - requested).days
