"""Subtly wrong: includes n itself when n is prime."""
# expect-fail: count_up_to.ensures
def count_up_to(n):
    return [k for k in range(2, n + 1) if all(k % d for d in range(2, k))]
