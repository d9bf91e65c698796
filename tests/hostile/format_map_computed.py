"""Hostile: str.format_map taken as a value, on a template built at run time.

Only a call written as template.format_map(...) was looked at; the bound method kept
in a variable is called later with a template whose fields read attributes.
"""

from fractions import Fraction


def f(x: int) -> int:
    u = "_" * 2
    template = "{F." + u + "new" + u + "." + u + "globals" + u + "[sys].modules[os].environ}"
    render = template.format_map
    env = render({"F": Fraction})
    if "DERIVATIVE_CANARY" in env:
        leaked = env.split("DERIVATIVE_CANARY", 1)[1][:80]
        print("DERIVATIVE-BREACH format_map_computed:", leaked, flush=True)
        raise ValueError(f"canary {leaked}")
    return x + 1
