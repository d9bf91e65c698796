"""Subtly wrong: puts a space between the strings."""
# expect-fail: concatenate.ensures
def concatenate(strings):
    return " ".join(strings)
