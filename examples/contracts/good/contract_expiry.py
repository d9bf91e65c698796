"""Contract expiry: the pure core (judged by `derivative build` against expiry.req)."""

from __future__ import annotations

import datetime
import enum

WARN_DAYS = 90


class Standing(enum.Enum):
    expired = "expired"
    expiring = "expiring"
    active = "active"


def days_left(expires: datetime.date, today: datetime.date) -> int:
    return (expires - today).days


def expiring_soon(expires: datetime.date, today: datetime.date) -> bool:
    return today <= expires and days_left(expires, today) < WARN_DAYS


def standing(expires: datetime.date, today: datetime.date) -> Standing:
    if expires < today:
        return Standing.expired
    if days_left(expires, today) < WARN_DAYS:
        return Standing.expiring
    return Standing.active
