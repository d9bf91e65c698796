"""How far ahead rooms can be booked."""

from __future__ import annotations

import datetime

HORIZON_DAYS = 90


def can_book(today: datetime.date, arrival: datetime.date) -> bool:
    """Whether a stay arriving on `arrival` can be booked on `today`."""
    ahead = (arrival - today).days
    return 1 <= ahead <= HORIZON_DAYS


def booking_opens(arrival: datetime.date) -> datetime.date:
    """The first day on which a stay arriving on `arrival` can be booked."""
    return arrival - datetime.timedelta(days=HORIZON_DAYS)
