"""Correct implementation of rotate_left/spec.req."""
def rotate(xs, k):
    k %= len(xs)
    return xs[k:] + xs[:k]
