"""Subtly wrong: starts the running maximum at zero, wrong for all-negative prefixes."""
# expect-fail: rolling_max.ensures
def rolling_max(numbers):
    out, best = [], 0
    for x in numbers:
        best = max(best, x)
        out.append(best)
    return out
