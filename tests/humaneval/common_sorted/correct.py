"""Correct implementation of common_sorted/spec.req."""
def common(a, b):
    return sorted(set(a) & set(b))
