"""Correct implementation of concatenate/spec.req."""
def concatenate(strings):
    return "".join(strings)
