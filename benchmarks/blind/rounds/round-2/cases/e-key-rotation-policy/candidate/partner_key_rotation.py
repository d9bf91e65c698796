"""Schedules of the automatic partner API key rotation."""


def rotation_due(created, today, interval_days):
    return (today - created).days >= interval_days


def reminder_due(created, today, interval_days, reminder_days):
    age = (today - created).days
    return interval_days - reminder_days <= age < interval_days
