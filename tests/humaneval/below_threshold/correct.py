"""Correct implementation of below_threshold/spec.req."""
def below_threshold(values, limit):
    return all(v < limit for v in values)
