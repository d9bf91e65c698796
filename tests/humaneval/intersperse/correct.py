"""Correct implementation of intersperse/spec.req."""
def intersperse(numbers, delimiter):
    out = []
    for i, x in enumerate(numbers):
        if i:
            out.append(delimiter)
        out.append(x)
    return out
