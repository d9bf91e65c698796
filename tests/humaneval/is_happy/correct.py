"""Correct implementation of is_happy/spec.req."""
def is_happy(text):
    if len(text) < 3:
        return False
    return all(len({text[i], text[i + 1], text[i + 2]}) == 3 for i in range(len(text) - 2))
