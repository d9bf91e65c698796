"""Correct implementation of days_until_deadline/spec.req."""
def days_left(today, deadline):
    return max(0, (deadline - today).days)
