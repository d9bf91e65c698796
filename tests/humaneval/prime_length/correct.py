"""Correct implementation of prime_length/spec.req."""
def prime_length(text):
    n = len(text)
    return n >= 2 and all(n % d for d in range(2, n))
