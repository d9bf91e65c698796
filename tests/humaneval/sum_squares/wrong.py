"""Subtly wrong: leaves out the squares of negative numbers."""
# expect-fail: sum_squares.ensures
def sum_squares(xs):
    return sum(x * x for x in xs if x > 0)
