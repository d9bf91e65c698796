"""Oracle for e-elevator-car-controller, written from the requirements only."""

import elevator_car as m

STATES = ["parked", "doors_open", "moving", "emergency_stop"]
EVENTS = ["call", "open_button", "close_timer", "arrive", "emergency", "reset"]

# The full transition table as the requirements describe it.
# None: InvalidTransition (sensor fault); "unsafe": UnsafeCommand.
TABLE = {
    ("parked", "call"): "moving",
    ("parked", "open_button"): "doors_open",
    ("doors_open", "close_timer"): "parked",
    ("moving", "arrive"): "doors_open",
    ("moving", "open_button"): "unsafe",
}


def _member(enum_name, name):
    cls = getattr(m, enum_name, None)
    return cls[name] if cls is not None else name


def _name(value):
    return getattr(value, "name", value)


def _expected(state, event, key):
    if state == "moving" and event == "open_button":
        return "unsafe"
    if event == "arrive" and state != "moving":
        return None
    if event == "emergency":
        return "emergency_stop"
    if state == "emergency_stop" and event == "reset":
        return "parked" if key else "emergency_stop"
    return TABLE.get((state, event), state)


def test_every_transition():
    for state in STATES:
        for event in EVENTS:
            for key in (False, True):
                want = _expected(state, event, key)
                call = lambda: m.next_state(_member("Car", state), _member("Event", event), key)
                if want == "unsafe":
                    try:
                        call()
                        assert False, (state, event, key)
                    except m.UnsafeCommand:
                        pass
                elif want is None:
                    try:
                        call()
                        assert False, (state, event, key)
                    except m.InvalidTransition:
                        pass
                else:
                    assert _name(call()) == want, (state, event, key)


def test_unsafe_command_is_an_invalid_transition_and_a_value_error():
    assert issubclass(m.UnsafeCommand, m.InvalidTransition)
    assert issubclass(m.InvalidTransition, ValueError)


def test_emergency_stop_needs_the_key():
    stop = _member("Car", "emergency_stop")
    for event in EVENTS:
        if event == "arrive":
            continue
        result = _name(m.next_state(stop, _member("Event", event), False))
        assert result == "emergency_stop", event
    assert _name(m.next_state(stop, _member("Event", "reset"), True)) == "parked"


def test_a_ride():
    car = _member("Car", "parked")
    for event in ["open_button", "close_timer", "call", "arrive", "close_timer", "call", "emergency"]:
        car = m.next_state(car, _member("Event", event), False)
    assert _name(car) == "emergency_stop"
    car = m.next_state(car, _member("Event", "reset"), True)
    assert _name(car) == "parked"


def test_direction():
    for current in range(-3, 13):
        for target in range(-3, 13):
            want = "up" if target > current else "down" if target < current else "stay"
            assert _name(m.direction(current, target)) == want, (current, target)
