"""Correct implementation of monotone_either_way/spec.req."""
def monotone(xs):
    up = all(a <= b for a, b in zip(xs, xs[1:]))
    down = all(a >= b for a, b in zip(xs, xs[1:]))
    return up or down
