"""Subtly wrong: one is taken for a prime."""
# expect-fail: x_or_y.ensures
def x_or_y(n, x, y):
    if n < 1:
        return y
    for d in range(2, n):
        if n % d == 0:
            return y
    return x
