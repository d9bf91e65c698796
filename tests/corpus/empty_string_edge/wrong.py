"""Subtly wrong: returns '?' for the empty string."""
# expect-fail: initial.ensures
def initial(name):
    return name[0] if name else "?"
