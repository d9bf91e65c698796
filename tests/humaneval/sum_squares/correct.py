"""Correct implementation of sum_squares/spec.req."""
def sum_squares(xs):
    return sum(x * x for x in xs)
