"""Correct implementation of get_positive/spec.req."""
def get_positive(xs):
    return [x for x in xs if x > 0]
