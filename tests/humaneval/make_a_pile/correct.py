"""Correct implementation of make_a_pile/spec.req."""
def make_a_pile(n):
    return [n + 2 * i for i in range(n)]
