"""Subtly wrong: starts from 0: wrong when every element is negative."""
# expect-fail: largest.ensures
def largest(xs):
    best = 0
    for x in xs:
        best = max(best, x)
    if not xs:
        raise ValueError("empty")
    return best
