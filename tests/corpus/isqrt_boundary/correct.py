"""Correct implementation of isqrt_boundary/spec.req."""
import math
def isqrt(n):
    return math.isqrt(n)
