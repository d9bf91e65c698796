"""Subtly wrong: steps by one instead of to the next number of the same parity."""
# expect-fail: make_a_pile.ensures
def make_a_pile(n):
    return [n + i for i in range(n)]
