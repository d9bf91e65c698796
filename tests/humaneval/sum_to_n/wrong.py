"""Subtly wrong: leaves out n itself."""
# expect-fail: sum_to_n.ensures
def sum_to_n(n):
    return sum(range(n))
