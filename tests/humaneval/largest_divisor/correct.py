"""Correct implementation of largest_divisor/spec.req."""
def largest_divisor(n):
    for d in range(2, n + 1):
        if n % d == 0:
            return n // d
    return 1
