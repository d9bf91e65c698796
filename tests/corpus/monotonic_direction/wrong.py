"""Subtly wrong: the direction is taken from the first pair only, so [0, 0, -1] (a tie first,
then a fall) is judged as rising and rejected."""
# expect-fail: monotonic.ensures


def monotonic(xs):
    if len(xs) < 2:
        return True
    if xs[0] <= xs[1]:
        return all(a <= b for a, b in zip(xs, xs[1:]))
    return all(a >= b for a, b in zip(xs, xs[1:]))
