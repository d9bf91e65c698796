"""Correct implementation of clamp_upper_off_by_one/spec.req."""
def clamp(x, lo, hi):
    return max(lo, min(x, hi))
