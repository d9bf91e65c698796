"""Correct implementation of sum_product/spec.req."""
def sum_product(numbers):
    total, prod = 0, 1
    for x in numbers:
        total += x
        prod *= x
    return (total, prod)
