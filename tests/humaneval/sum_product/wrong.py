"""Subtly wrong: the product of no numbers taken as zero."""
# expect-fail: sum_product.ensures
def sum_product(numbers):
    if not numbers:
        return (0, 0)
    total, prod = 0, 1
    for x in numbers:
        total += x
        prod *= x
    return (total, prod)
