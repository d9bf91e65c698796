"""Correct implementation of parse_digits/spec.req."""
def parse_minutes(text):
    if not (text.isascii() and text.isdigit()):
        raise ValueError(text)
    return int(text)
