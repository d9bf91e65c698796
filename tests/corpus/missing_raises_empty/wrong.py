"""Subtly wrong: returns 0.0 for the empty list instead of raising ValueError."""
# expect-fail: mean.raises.ValueError
def mean(xs):
    if not xs:
        return 0.0
    return sum(xs) / len(xs)
