"""Subtly wrong: returns the second to last element."""
# expect-fail: last.ensures
def last(xs):
    return xs[len(xs) - 2] if len(xs) > 1 else xs[0]
