"""Subtly wrong: a deadline in the past gives a positive count."""
# expect-fail: days_left.ensures
def days_left(today, deadline):
    return abs((deadline - today).days)
