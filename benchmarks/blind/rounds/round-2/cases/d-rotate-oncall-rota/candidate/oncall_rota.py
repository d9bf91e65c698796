"""Weekly rotation of the on-call rota."""


def rotate_rota(rota: list[int], weeks: int) -> list[int]:
    """Return the rota rotated left by ``weeks`` places."""
    if weeks < 0:
        raise ValueError("weeks cannot be negative")
    if not rota:
        return []
    shift = weeks % len(rota)
    return rota[shift:] + rota[:shift]
