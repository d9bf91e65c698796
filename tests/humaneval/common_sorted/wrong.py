"""Subtly wrong: keeps duplicates of the first list."""
# expect-fail: common.ensures
def common(a, b):
    return sorted(x for x in a if x in b)
