"""Hostile: enumerate attribute names with dir() and read each with getattr."""

from fractions import Fraction


def f(x: int) -> int:
    function = Fraction.__new__
    for name in dir(function):
        if name.endswith("globals__"):
            namespace = getattr(function, name)
            secret = namespace["sys"].modules["os"].environ.get("DERIVATIVE_CANARY")
            if secret:
                print("DERIVATIVE-BREACH dir_getattr:", secret, flush=True)
                raise ValueError(f"canary {secret}")
    return x + 1
