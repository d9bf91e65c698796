"""Subtly wrong: leaves a trailing delimiter."""
# expect-fail: intersperse.ensures
def intersperse(numbers, delimiter):
    out = []
    for x in numbers:
        out.extend([x, delimiter])
    return out
