"""The year-end change freeze calendar."""

from __future__ import annotations

import datetime


def in_freeze(day: datetime.date, start: datetime.date, end: datetime.date) -> bool:
    """Whether `day` falls in the freeze from `start` to `end`, both included."""
    return start <= day <= end
