"""Subtly wrong: a load equal to the capacity is refused."""
# expect-fail: will_it_fly.ensures
def will_it_fly(weights, capacity):
    return weights == weights[::-1] and sum(weights) < capacity
