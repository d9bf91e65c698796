"""Correct implementation of rolling_max/spec.req."""
def rolling_max(numbers):
    out, best = [], None
    for x in numbers:
        best = x if best is None else max(best, x)
        out.append(best)
    return out
