"""Subtly wrong: keeps zeros."""
# expect-fail: get_positive.ensures
def get_positive(xs):
    return [x for x in xs if x >= 0]
