"""Correct implementation of monotonic_direction/spec.req."""


def monotonic(xs):
    rising = all(a <= b for a, b in zip(xs, xs[1:]))
    falling = all(a >= b for a, b in zip(xs, xs[1:]))
    return rising or falling
