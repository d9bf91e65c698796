"""Refunds for cancelled hotel bookings."""

from __future__ import annotations

import datetime

FULL_REFUND_DAYS = 14
PARTIAL_REFUND_DAYS = 2


def refund_percent(checkin: datetime.date, cancelled_on: datetime.date) -> int:
    """Percentage of the price refunded when a booking is cancelled on `cancelled_on`."""
    if cancelled_on > checkin:
        raise ValueError("the stay has already started")
    days_ahead = (checkin - cancelled_on).days
    if days_ahead >= FULL_REFUND_DAYS:
        return 100
    if days_ahead >= PARTIAL_REFUND_DAYS:
        return 50
    return 0


def refund_cents(price_cents: int, checkin: datetime.date, cancelled_on: datetime.date) -> int:
    """The refund in cents; a half refund rounds down to the cent."""
    percent = refund_percent(checkin, cancelled_on)
    return price_cents * percent // 100
