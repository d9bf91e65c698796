"""Hospital car park tariff."""

import enum

GRACE_MINUTES = 15
HOURLY_CENTS = 250
DAILY_CAP_CENTS = 1800
DAY_MINUTES = 1440


class Visitor(enum.Enum):
    standard = "standard"
    patient_family = "patient_family"
    staff = "staff"


def parking_fee(minutes):
    """Fee in cents for a stay of `minutes` minutes."""
    if minutes < 0:
        raise ValueError(f"negative stay: {minutes} minutes")
    if minutes <= GRACE_MINUTES:
        return 0
    full_days, rest = divmod(minutes, DAY_MINUTES)
    started_hours = -(-rest // 60)
    return full_days * DAILY_CAP_CENTS + min(DAILY_CAP_CENTS, started_hours * HOURLY_CENTS)


def visitor_fee(fee_cents, visitor):
    """What a visitor of the given kind pays for a fee of `fee_cents`."""
    kind = visitor.name if isinstance(visitor, Visitor) else str(visitor)
    if kind == "staff":
        return 0
    if kind == "patient_family":
        # half, rounded up to whole 10 cents
        return -(-fee_cents // 20) * 10
    return fee_cents
