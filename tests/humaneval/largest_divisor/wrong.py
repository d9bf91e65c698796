"""Subtly wrong: returns the smallest proper divisor above one (right for n = p * p only)."""
# expect-fail: largest_divisor.ensures
def largest_divisor(n):
    for d in range(2, n):
        if n % d == 0:
            return d
    return 1
