"""The 30-day return window of the web shop."""

from __future__ import annotations

import datetime

RETURN_DAYS = 30


def return_deadline(delivered: datetime.date) -> datetime.date:
    """The last day on which a return of an item delivered on `delivered` is accepted."""
    return delivered + datetime.timedelta(days=RETURN_DAYS)


def can_return(delivered: datetime.date, requested: datetime.date) -> bool:
    """Whether a return requested on `requested` is inside the window."""
    if requested < delivered:
        raise ValueError("a return cannot be requested before the item was delivered")
    return requested < return_deadline(delivered)
