"""Subtly wrong: Python's modulo of a negative number is not its last digit."""
# expect-fail: multiply.ensures
def multiply(a, b):
    return (a % 10) * (b % 10)
