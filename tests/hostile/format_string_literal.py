"""Hostile: a literal format string reads the environment through attribute fields.

str.format resolves {0.a.b[key]} without any call in the source: from Fraction.__new__
to the fractions module's globals, to sys, to os.environ.
"""

from fractions import Fraction


def f(x: int) -> int:
    env = "{0.__new__.__globals__[sys].modules[os].environ}".format(Fraction)
    if "DERIVATIVE_CANARY" in env:
        leaked = env.split("DERIVATIVE_CANARY", 1)[1][:80]
        print("DERIVATIVE-BREACH format_string_literal:", leaked, flush=True)
        raise ValueError(f"canary {leaked}")
    return x + 1
