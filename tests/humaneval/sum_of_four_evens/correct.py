"""Correct implementation of sum_of_four_evens/spec.req."""
def is_equal_to_sum_even(n):
    return n >= 8 and n % 2 == 0
