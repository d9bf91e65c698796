"""Acceptance check for sensor calibration tables."""


def is_monotonic(readings: list[int]) -> bool:
    """Return True when the readings are entirely non-decreasing or entirely non-increasing."""
    if len(readings) < 2:
        return True
    increasing = readings[1] >= readings[0]
    for previous, current in zip(readings, readings[1:]):
        if increasing and current < previous:
            return False
        if not increasing and current > previous:
            return False
    return True
