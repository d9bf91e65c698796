"""The first position of a value, or None when it is absent."""


def find_index(xs, v):
    for i, x in enumerate(xs):
        if x == v:
            return i
    return None
