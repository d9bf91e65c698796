"""Subtly wrong: wrong above y == 80: only inputs satisfying the narrow precondition reach it."""
# expect-fail: succ_pair.ensures
def succ_pair(x, y):
    return x + y if y < 80 else 2 * y
