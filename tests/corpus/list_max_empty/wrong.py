"""Subtly wrong: an off-by-one emptiness check treats a one-element list as empty."""
# expect-fail: largest.raises.ValueError
def largest(xs):
    if len(xs) < 2:
        raise ValueError("empty")
    return max(xs)
