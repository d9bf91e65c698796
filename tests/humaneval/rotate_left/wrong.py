"""Subtly wrong: rotates right instead of left."""
# expect-fail: rotate.ensures
def rotate(xs, k):
    k %= len(xs)
    return xs[len(xs) - k:] + xs[:len(xs) - k]
