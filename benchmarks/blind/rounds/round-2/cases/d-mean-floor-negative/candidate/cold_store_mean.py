"""Mean temperature shown on the cold-store dashboard."""


def mean_floor(readings: list[int]) -> int:
    """Return the mean of the readings, rounded down to a whole number."""
    if not readings:
        raise ValueError("a batch with no readings has no mean")
    return int(sum(readings) / len(readings))
