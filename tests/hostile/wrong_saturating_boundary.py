"""Innocent-looking, wrong: "overflow protection" that saturates at 2**31 - 1."""

INT_MAX = 2**31 - 1


def f(x: int) -> int:
    """The successor of x, saturating like a 32-bit counter."""
    if x >= INT_MAX:
        return INT_MAX
    return x + 1
