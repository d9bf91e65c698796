"""Innocent-looking, wrong: goes through float, so it is wrong beyond 2**53."""


def f(x: int) -> int:
    """The successor of x."""
    return int(float(x) + 1.0)
