"""Correct implementation of floor_div_negative_rounding/spec.req."""
def half(x):
    return x // 2
