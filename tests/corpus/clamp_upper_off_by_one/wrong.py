"""Subtly wrong: off by one at the upper boundary: x == hi returns hi - 1."""
# expect-fail: clamp.ensures
def clamp(x, lo, hi):
    if x >= hi:
        return hi - 1 if hi > lo else hi
    return max(lo, x)
