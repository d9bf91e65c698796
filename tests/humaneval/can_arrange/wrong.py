"""Subtly wrong: returns the first drop instead of the last one."""
# expect-fail: can_arrange.ensures
def can_arrange(xs):
    for i in range(1, len(xs)):
        if xs[i] < xs[i - 1]:
            return i
    return -1
