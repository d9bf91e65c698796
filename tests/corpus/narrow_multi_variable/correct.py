"""Correct implementation of narrow_multi_variable/spec.req."""
def succ_pair(x, y):
    return x + y
