"""Correct implementation of list_max_empty/spec.req."""
def largest(xs):
    if not xs:
        raise ValueError("empty")
    return max(xs)
