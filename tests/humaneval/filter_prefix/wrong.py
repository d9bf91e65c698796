"""Subtly wrong: looks for the prefix anywhere in the string."""
# expect-fail: filter_by_prefix.ensures
def filter_by_prefix(strings, prefix):
    return [s for s in strings if prefix in s]
