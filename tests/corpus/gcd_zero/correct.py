"""Correct implementation of gcd_zero/spec.req."""
def gcd(a, b):
    while b:
        a, b = b, a % b
    return a
