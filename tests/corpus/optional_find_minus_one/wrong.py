"""Subtly wrong: the C habit of -1 for "absent" instead of none."""
# expect-fail: find_index.ensures, find_index.example
def find_index(xs, v):
    for i, x in enumerate(xs):
        if x == v:
            return i
    return -1
