"""Subtly wrong: only checks that the first string's characters occur in the second."""
# expect-fail: same_chars.ensures
def same_chars(a, b):
    return set(a) <= set(b)
