"""Subtly wrong: only the four-year rule (every century is a leap year)."""
# expect-fail: is_leap.ensures, X1
def is_leap(year):
    return year % 4 == 0
