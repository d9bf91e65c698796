"""Correct implementation of unique_sorted/spec.req."""
def unique(xs):
    return sorted(set(xs))
