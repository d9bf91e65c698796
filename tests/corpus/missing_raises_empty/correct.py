"""Correct implementation of missing_raises_empty/spec.req."""
def mean(xs):
    if not xs:
        raise ValueError("mean of nothing")
    return sum(xs) / len(xs)
