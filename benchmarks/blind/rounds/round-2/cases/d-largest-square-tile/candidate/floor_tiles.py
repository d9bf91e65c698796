"""Largest square tile for a rectangular floor."""


def tile_side(width_cm: int, height_cm: int) -> int:
    """Return the side of the largest square tile that covers the floor exactly."""
    if width_cm < 1 or height_cm < 1:
        raise ValueError("floor sides must be positive")
    a, b = width_cm, height_cm
    while b:
        a, b = b, a % b
    return a
