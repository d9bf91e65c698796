"""Correct implementation of x_or_y/spec.req."""
def x_or_y(n, x, y):
    if n < 2:
        return y
    for d in range(2, n):
        if n % d == 0:
            return y
    return x
