"""Oracle for c-order-lifecycle-transitions, written from the requirements only."""

from order_lifecycle import InvalidTransition, OrderEvent, OrderState, next_state

# The lifecycle diagram from the ticket: (state, event) -> new state.
ALLOWED = {
    ("created", "pay"): "paid",
    ("created", "cancel"): "cancelled",
    ("paid", "ship"): "shipped",
    ("paid", "cancel"): "refunded",
    ("shipped", "deliver"): "delivered",
    ("delivered", "refund"): "refunded",
}
STATES = ["created", "paid", "shipped", "delivered", "cancelled", "refunded"]
EVENTS = ["pay", "ship", "deliver", "cancel", "refund"]
DAYS = [0, 1, 7, 29, 30, 31, 32, 90, 365, 3650]


def _name(value):
    return value.name if hasattr(value, "name") else value


def _expected(state, event, days):
    if (state, event) == ("delivered", "refund") and days > 30:
        return None
    return ALLOWED.get((state, event))


def test_every_transition_of_the_table():
    for s in STATES:
        for e in EVENTS:
            for d in DAYS:
                want = _expected(s, e, d)
                if want is None:
                    try:
                        got = next_state(OrderState[s], OrderEvent[e], d)
                    except InvalidTransition:
                        continue
                    assert False, (s, e, d, got)
                else:
                    assert _name(next_state(OrderState[s], OrderEvent[e], d)) == want, (s, e, d)


def test_invalid_transition_is_a_value_error():
    assert issubclass(InvalidTransition, ValueError)
    try:
        next_state(OrderState.shipped, OrderEvent.cancel, 0)
        assert False
    except ValueError:
        pass


def test_return_window_boundary():
    for d in range(0, 31):
        assert _name(next_state(OrderState.delivered, OrderEvent.refund, d)) == "refunded"
    for d in range(31, 400):
        try:
            next_state(OrderState.delivered, OrderEvent.refund, d)
            assert False, d
        except InvalidTransition:
            pass


def test_terminal_states_accept_nothing():
    for s in ("cancelled", "refunded"):
        for e in EVENTS:
            for d in (0, 30, 31):
                try:
                    next_state(OrderState[s], OrderEvent[e], d)
                    assert False, (s, e, d)
                except InvalidTransition:
                    pass


def test_days_only_matter_for_refunds():
    for (s, e), want in ALLOWED.items():
        if (s, e) == ("delivered", "refund"):
            continue
        for d in range(0, 3651, 37):
            assert _name(next_state(OrderState[s], OrderEvent[e], d)) == want
