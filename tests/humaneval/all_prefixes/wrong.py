"""Subtly wrong: gives the suffixes, which are right only for strings of one repeated letter."""
# expect-fail: all_prefixes.ensures
def all_prefixes(text):
    return [text[len(text) - i - 1:] for i in range(len(text))]
