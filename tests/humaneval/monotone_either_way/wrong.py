"""Subtly wrong: strict comparisons reject equal neighbours."""
# expect-fail: monotone.ensures
def monotone(xs):
    up = all(a < b for a, b in zip(xs, xs[1:]))
    down = all(a > b for a, b in zip(xs, xs[1:]))
    return up or down
