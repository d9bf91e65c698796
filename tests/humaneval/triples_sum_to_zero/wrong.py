"""Subtly wrong: looks for the third number among all elements, so an element may be used twice."""
# expect-fail: triples_sum_to_zero.ensures
def triples_sum_to_zero(xs):
    n = len(xs)
    for i in range(n):
        for j in range(i + 1, n):
            if -(xs[i] + xs[j]) in xs:
                return True
    return False
