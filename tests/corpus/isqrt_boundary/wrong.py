"""Subtly wrong: one too small on perfect squares."""
# expect-fail: isqrt.ensures
import math
def isqrt(n):
    r = int(math.sqrt(n))
    return r - 1 if r * r == n and n > 0 else r
