"""Trial and grace periods of a new subscription."""

from __future__ import annotations

import datetime
import enum

TRIAL_DAYS = 14
GRACE_DAYS = 7


class TrialState(enum.Enum):
    trial = "trial"
    grace = "grace"
    expired = "expired"


def _day_number(signup: datetime.date, today: datetime.date) -> int:
    """Days since sign-up (0 on the sign-up day); refuses a day before sign-up."""
    if today < signup:
        raise ValueError(f"{today} is before the sign-up day {signup}")
    return (today - signup).days


def trial_last_day(signup: datetime.date) -> datetime.date:
    return signup + datetime.timedelta(days=TRIAL_DAYS - 1)


def trial_state(signup: datetime.date, today: datetime.date) -> TrialState:
    elapsed = _day_number(signup, today)
    if elapsed < TRIAL_DAYS:
        return TrialState.trial
    if elapsed < TRIAL_DAYS + GRACE_DAYS:
        return TrialState.grace
    return TrialState.expired


def trial_days_left(signup: datetime.date, today: datetime.date) -> int:
    return max(0, TRIAL_DAYS - _day_number(signup, today))
