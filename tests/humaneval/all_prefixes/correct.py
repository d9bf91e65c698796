"""Correct implementation of all_prefixes/spec.req."""
def all_prefixes(text):
    return [text[: i + 1] for i in range(len(text))]
