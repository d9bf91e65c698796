"""Correct implementation of primes_below/spec.req."""
def count_up_to(n):
    return [k for k in range(2, n) if all(k % d for d in range(2, k))]
