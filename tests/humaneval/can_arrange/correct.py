"""Correct implementation of can_arrange/spec.req."""
def can_arrange(xs):
    found = -1
    for i in range(1, len(xs)):
        if xs[i] < xs[i - 1]:
            found = i
    return found
