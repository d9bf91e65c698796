"""Subtly wrong: a match at position 0 is reported as missing."""
# expect-fail: find_first.ensures
def find_first(hay, needle):
    i = hay.find(needle)
    return i if i > 0 else -1
