"""Subtly wrong: forgets the rule about repeated numbers."""
# expect-fail: is_sorted.ensures
def is_sorted(xs):
    return all(a <= b for a, b in zip(xs, xs[1:]))
