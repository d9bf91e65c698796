"""Correct implementation of same_chars/spec.req."""
def same_chars(a, b):
    return set(a) == set(b)
