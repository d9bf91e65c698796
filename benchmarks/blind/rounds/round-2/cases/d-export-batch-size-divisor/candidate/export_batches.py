"""Batching of the nightly export."""

BATCH_SIZE = 40
"""Records per batch: within the operations range and a divisor of the 1000-record export file."""


def batch_count(records: int, size: int) -> int:
    """Return how many batches of ``size`` records are needed for ``records`` records."""
    return (records + size - 1) // size
