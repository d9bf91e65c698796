"""Innocent-looking, wrong: assumes a non-negative count, so negatives go the wrong way."""


def f(x: int) -> int:
    """The successor of a count."""
    return abs(x) + 1
