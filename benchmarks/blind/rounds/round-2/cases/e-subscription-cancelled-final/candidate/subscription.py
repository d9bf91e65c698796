"""Subscription lifecycle of the billing service."""

import enum


class Status(enum.Enum):
    trial = "trial"
    active = "active"
    past_due = "past_due"
    suspended = "suspended"
    cancelled = "cancelled"


class Event(enum.Enum):
    payment_succeeded = "payment_succeeded"
    payment_failed = "payment_failed"
    grace_period_over = "grace_period_over"
    trial_over = "trial_over"
    cancel = "cancel"


class InvalidTransition(ValueError):
    """An event that the subscription's status does not allow."""


_MOVES = {
    (Status.active, Event.payment_failed): Status.past_due,
    (Status.past_due, Event.grace_period_over): Status.suspended,
    (Status.trial, Event.trial_over): Status.suspended,
}


def _as(enum_cls, value):
    return value if isinstance(value, enum_cls) else enum_cls[value]


def next_status(status, event):
    status = _as(Status, status)
    event = _as(Event, event)
    if event is Event.payment_succeeded:
        # Money received always settles the account, whatever state it was in.
        return Status.active
    if status is Status.cancelled:
        raise InvalidTransition(f"subscription is cancelled; {event.name} needs manual review")
    if event is Event.cancel:
        return Status.cancelled
    return _MOVES.get((status, event), status)


def has_access(status):
    return _as(Status, status) in (Status.trial, Status.active, Status.past_due)
