"""Subtly wrong: amber goes back to green."""
# expect-fail: next_light.ensures
import enum
class Light(enum.Enum):
    red = 1
    amber = 2
    green = 3
def next_light(l):
    return {Light.red: Light.green, Light.green: Light.amber, Light.amber: Light.green}[l]
