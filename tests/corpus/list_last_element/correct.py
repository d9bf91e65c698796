"""Correct implementation of list_last_element/spec.req."""
def last(xs):
    return xs[-1]
