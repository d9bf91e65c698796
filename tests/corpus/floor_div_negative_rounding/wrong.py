"""Subtly wrong: truncates towards zero: wrong for negative odd numbers."""
# expect-fail: half.ensures
def half(x):
    return int(x / 2)
