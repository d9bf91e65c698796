"""Correct implementation of string_xor/spec.req."""
def string_xor(a, b):
    return "".join("1" if x != y else "0" for x, y in zip(a, b))
