"""Subtly wrong: only neighbours are compared, so "aba" counts as happy."""
# expect-fail: is_happy.ensures
def is_happy(text):
    if len(text) < 3:
        return False
    return all(text[i] != text[i + 1] for i in range(len(text) - 1))
