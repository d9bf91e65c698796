"""Subtly wrong: checks the balance only at the end."""
# expect-fail: below_zero.ensures
def below_zero(operations):
    return sum(operations) < 0
