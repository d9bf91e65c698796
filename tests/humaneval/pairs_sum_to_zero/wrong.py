"""Subtly wrong: lets an element pair with itself, so a lone zero counts."""
# expect-fail: pairs_sum_to_zero.ensures
def pairs_sum_to_zero(xs):
    return any(x + y == 0 for x in xs for y in xs)
