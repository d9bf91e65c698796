"""Correct implementation of unit_digit_product/spec.req."""
def multiply(a, b):
    return (abs(a) % 10) * (abs(b) % 10)
