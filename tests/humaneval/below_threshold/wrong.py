"""Subtly wrong: lets a value equal to the limit through."""
# expect-fail: below_threshold.ensures
def below_threshold(values, limit):
    return all(v <= limit for v in values)
