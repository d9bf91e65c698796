"""Fixed-time signal plan: which phase is shown t seconds after the plan started."""

import enum


class Phase(enum.Enum):
    green = "green"
    yellow = "yellow"
    red = "red"


def phase_at(t, green, yellow, red):
    offset = t % (green + yellow + red)
    if offset < green:
        return Phase.green
    if offset < green + yellow:
        return Phase.yellow
    return Phase.red
