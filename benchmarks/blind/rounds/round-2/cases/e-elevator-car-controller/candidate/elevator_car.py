"""Controller of one lift car."""

import enum


class Car(enum.Enum):
    parked = "parked"
    doors_open = "doors_open"
    moving = "moving"
    emergency_stop = "emergency_stop"


class Event(enum.Enum):
    call = "call"
    open_button = "open_button"
    close_timer = "close_timer"
    arrive = "arrive"
    emergency = "emergency"
    reset = "reset"


class Direction(enum.Enum):
    up = "up"
    down = "down"
    stay = "stay"


class InvalidTransition(ValueError):
    """An event that cannot happen in the car's state."""


class UnsafeCommand(InvalidTransition):
    """A command that would put passengers at risk."""


_MOVES = {
    (Car.parked, Event.call): Car.moving,
    (Car.parked, Event.open_button): Car.doors_open,
    (Car.doors_open, Event.close_timer): Car.parked,
    (Car.moving, Event.arrive): Car.doors_open,
}


def _as(enum_cls, value):
    return value if isinstance(value, enum_cls) else enum_cls[value]


def next_state(state, event, technician_key):
    state = _as(Car, state)
    event = _as(Event, event)
    if state is Car.moving and event is Event.open_button:
        raise UnsafeCommand("doors cannot open while the car moves")
    if event is Event.arrive and state is not Car.moving:
        raise InvalidTransition(f"arrival reported while {state.name}")
    if event is Event.emergency:
        return Car.emergency_stop
    if state is Car.emergency_stop:
        if event is Event.reset and technician_key:
            return Car.parked
        return Car.emergency_stop
    return _MOVES.get((state, event), state)


def direction(current_floor, target_floor):
    if target_floor > current_floor:
        return Direction.up
    if target_floor < current_floor:
        return Direction.down
    return Direction.stay
