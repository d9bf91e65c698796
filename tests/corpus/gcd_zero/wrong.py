"""Subtly wrong: divides by b before checking it, so gcd(a, 0) raises ZeroDivisionError."""
# expect-fail: gcd.ensures
def gcd(a, b):
    while a % b:
        a, b = b, a % b
    return b
