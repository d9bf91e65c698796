"""Correct implementation of incr_list/spec.req."""
def incr_list(xs):
    return [x + 1 for x in xs]
