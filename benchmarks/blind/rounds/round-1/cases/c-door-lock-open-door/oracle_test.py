"""Oracle for c-door-lock-open-door, written from the requirements only."""

from door_lock import DoorEvent, DoorState, InvalidTransition, next_state

STATES = ["locked", "closed", "open"]
EVENTS = ["unlock", "lock", "open_door", "close_door"]
FORBIDDEN = {("open", "lock"), ("locked", "open_door")}


def _name(value):
    return value.name if hasattr(value, "name") else value


def _expected(state, event, code_ok):
    if (state, event) in FORBIDDEN:
        return None
    if state == "locked" and event == "unlock":
        return "closed" if code_ok else "locked"
    if state == "closed" and event == "lock":
        return "locked"
    if state == "closed" and event == "open_door":
        return "open"
    if state == "open" and event == "close_door":
        return "closed"
    return state


def test_whole_transition_table():
    for s in STATES:
        for e in EVENTS:
            for ok in (True, False):
                want = _expected(s, e, ok)
                if want is None:
                    try:
                        got = next_state(DoorState[s], DoorEvent[e], ok)
                    except InvalidTransition:
                        continue
                    assert False, (s, e, ok, got)
                assert _name(next_state(DoorState[s], DoorEvent[e], ok)) == want, (s, e, ok)


def test_bolt_never_thrown_on_open_door():
    for ok in (True, False):
        try:
            next_state(DoorState.open, DoorEvent.lock, ok)
            assert False
        except ValueError:
            pass


def test_locked_door_cannot_open():
    for ok in (True, False):
        try:
            next_state(DoorState.locked, DoorEvent.open_door, ok)
            assert False
        except InvalidTransition:
            pass


def test_wrong_code_never_unlocks():
    for e in EVENTS:
        if e == "open_door":
            continue
        assert _name(next_state(DoorState.locked, DoorEvent[e], False)) == "locked", e


def test_a_walk_through_the_day():
    s = DoorState.locked
    for e, ok, want in [("unlock", False, "locked"), ("unlock", True, "closed"),
                        ("open_door", False, "open"), ("close_door", False, "closed"),
                        ("lock", False, "locked")]:
        s = next_state(s, DoorEvent[e], ok)
        assert _name(s) == want, (e, ok)
        s = DoorState[_name(s)]
