"""Order lifecycle transitions for the back office."""

import enum

RETURN_WINDOW_DAYS = 30


class OrderState(enum.Enum):
    created = "created"
    paid = "paid"
    shipped = "shipped"
    delivered = "delivered"
    cancelled = "cancelled"
    refunded = "refunded"


class OrderEvent(enum.Enum):
    pay = "pay"
    ship = "ship"
    deliver = "deliver"
    cancel = "cancel"
    refund = "refund"


class InvalidTransition(ValueError):
    """The event is not allowed in the order's current state."""


_TRANSITIONS = {
    (OrderState.created, OrderEvent.pay): OrderState.paid,
    (OrderState.created, OrderEvent.cancel): OrderState.cancelled,
    (OrderState.paid, OrderEvent.ship): OrderState.shipped,
    (OrderState.paid, OrderEvent.cancel): OrderState.refunded,
    (OrderState.shipped, OrderEvent.deliver): OrderState.delivered,
    (OrderState.delivered, OrderEvent.refund): OrderState.refunded,
}


def next_state(state, event, days_since_delivery):
    state = OrderState(state) if not isinstance(state, OrderState) else state
    event = OrderEvent(event) if not isinstance(event, OrderEvent) else event
    target = _TRANSITIONS.get((state, event))
    if target is None:
        raise InvalidTransition(f"cannot {event.value} an order that is {state.value}")
    if event is OrderEvent.refund and days_since_delivery > RETURN_WINDOW_DAYS:
        raise InvalidTransition(
            f"return window closed {days_since_delivery - RETURN_WINDOW_DAYS} day(s) ago"
        )
    return target
