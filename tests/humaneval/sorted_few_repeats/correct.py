"""Correct implementation of sorted_few_repeats/spec.req."""
def is_sorted(xs):
    if any(xs.count(x) > 2 for x in xs):
        return False
    return all(a <= b for a, b in zip(xs, xs[1:]))
