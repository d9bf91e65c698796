"""Correct implementation of will_it_fly/spec.req."""
def will_it_fly(weights, capacity):
    return weights == weights[::-1] and sum(weights) <= capacity
