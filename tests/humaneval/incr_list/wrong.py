"""Subtly wrong: skips the first element."""
# expect-fail: incr_list.ensures
def incr_list(xs):
    return xs[:1] + [x + 1 for x in xs[1:]]
