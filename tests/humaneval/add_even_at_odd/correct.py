"""Correct implementation of add_even_at_odd/spec.req."""
def add(xs):
    return sum(x for i, x in enumerate(xs) if i % 2 == 1 and x % 2 == 0)
