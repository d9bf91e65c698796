"""Correct implementation of pairs_sum_to_zero/spec.req."""
def pairs_sum_to_zero(xs):
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if xs[i] + xs[j] == 0:
                return True
    return False
