"""Correct implementation of triples_sum_to_zero/spec.req."""
def triples_sum_to_zero(xs):
    n = len(xs)
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                if xs[i] + xs[j] + xs[k] == 0:
                    return True
    return False
