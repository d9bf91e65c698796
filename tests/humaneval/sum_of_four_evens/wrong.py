"""Subtly wrong: six is not a sum of four positive even numbers."""
# expect-fail: is_equal_to_sum_even.ensures
def is_equal_to_sum_even(n):
    return n >= 6 and n % 2 == 0
