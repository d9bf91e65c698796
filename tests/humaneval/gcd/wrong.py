"""Subtly wrong: the smaller number when it divides the larger, else 1 (gcd(12, 18) is 6)."""
# expect-fail: greatest_common_divisor.ensures
def greatest_common_divisor(a, b):
    small, big = min(a, b), max(a, b)
    return small if big % small == 0 else 1
