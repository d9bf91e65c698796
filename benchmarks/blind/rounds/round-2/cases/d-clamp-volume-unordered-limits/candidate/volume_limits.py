"""Clamp a requested speaker volume to the venue admin's limits."""


def clamp_volume(requested: int, lowest: int, highest: int) -> int:
    """Return the requested volume moved inside [lowest, highest]."""
    if requested < lowest:
        return lowest
    if requested > highest:
        return highest
    return requested
