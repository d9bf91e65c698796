"""Oracle for e-subscription-cancelled-final, written from the requirements only."""

import subscription as m

STATUSES = ["trial", "active", "past_due", "suspended", "cancelled"]
EVENTS = ["payment_succeeded", "payment_failed", "grace_period_over", "trial_over", "cancel"]

MOVES = {
    ("active", "payment_failed"): "past_due",
    ("past_due", "grace_period_over"): "suspended",
    ("trial", "trial_over"): "suspended",
}


def _member(enum_name, name):
    cls = getattr(m, enum_name, None)
    return cls[name] if cls is not None else name


def _name(value):
    return getattr(value, "name", value)


def _expected(status, event):
    if status == "cancelled":
        return None
    if event == "cancel":
        return "cancelled"
    if event == "payment_succeeded":
        return "active"
    return MOVES.get((status, event), status)


def test_transition_table():
    for status in STATUSES:
        if status == "cancelled":
            continue
        for event in EVENTS:
            got = m.next_status(_member("Status", status), _member("Event", event))
            assert _name(got) == _expected(status, event), (status, event)


def test_cancelled_is_final():
    for event in EVENTS:
        try:
            m.next_status(_member("Status", "cancelled"), _member("Event", event))
            assert False, event
        except m.InvalidTransition:
            pass
    assert issubclass(m.InvalidTransition, ValueError)


def test_a_customer_history():
    status = _member("Status", "trial")
    for event in ["trial_over", "payment_succeeded", "payment_failed", "payment_failed",
                  "grace_period_over", "payment_succeeded", "cancel"]:
        status = m.next_status(status, _member("Event", event))
    assert _name(status) == "cancelled"
    try:
        m.next_status(status, _member("Event", "payment_succeeded"))
        assert False, "a late payment reactivated a cancelled subscription"
    except m.InvalidTransition:
        pass


def test_access():
    for status in STATUSES:
        want = status in ("trial", "active", "past_due")
        assert m.has_access(_member("Status", status)) is want, status
