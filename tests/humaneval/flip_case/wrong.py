"""Subtly wrong: upper-cases everything."""
# expect-fail: flip_case.ensures
def flip_case(text):
    return text.upper()
