"""Correct implementation of sum_to_n/spec.req."""
def sum_to_n(n):
    return sum(range(n + 1))
