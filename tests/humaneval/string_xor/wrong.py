"""Subtly wrong: computes OR instead of XOR."""
# expect-fail: string_xor.ensures
def string_xor(a, b):
    return "".join("1" if "1" in (x, y) else "0" for x, y in zip(a, b))
