"""Subtly wrong: raises TypeError (not a ValueError) for non-digits."""
# expect-fail: parse_minutes.raises.ValueError
def parse_minutes(text):
    if text == "":
        raise ValueError(text)
    if not text.isdigit():
        raise TypeError(text)
    return int(text)
