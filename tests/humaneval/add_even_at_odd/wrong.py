"""Subtly wrong: sums the even elements at even positions."""
# expect-fail: add.ensures
def add(xs):
    return sum(x for i, x in enumerate(xs) if i % 2 == 0 and x % 2 == 0)
