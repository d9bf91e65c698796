"""State machine of the server-room door controller."""

import enum


class DoorState(enum.Enum):
    locked = "locked"
    closed = "closed"
    open = "open"


class DoorEvent(enum.Enum):
    unlock = "unlock"
    lock = "lock"
    open_door = "open_door"
    close_door = "close_door"


class InvalidTransition(ValueError):
    """The event cannot happen in the door's current state."""


def next_state(state, event, code_ok):
    state = state if isinstance(state, DoorState) else DoorState(state)
    event = event if isinstance(event, DoorEvent) else DoorEvent(event)
    if state is DoorState.locked:
        if event is DoorEvent.open_door:
            raise InvalidTransition("the contact sensor reports a locked door as open")
        if event is DoorEvent.unlock and code_ok:
            return DoorState.closed
        return DoorState.locked
    if state is DoorState.closed:
        if event is DoorEvent.lock:
            return DoorState.locked
        if event is DoorEvent.open_door:
            return DoorState.open
        return DoorState.closed
    # The door stands open: only closing it changes anything.
    if event is DoorEvent.close_door:
        return DoorState.closed
    return DoorState.open
