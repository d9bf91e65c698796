"""Hostile: a class pattern reads __globals__ (match binds attributes without a dot)."""

from fractions import Fraction


def f(x: int) -> int:
    match Fraction.__new__:
        case object(__globals__=namespace):
            secret = namespace["sys"].modules["os"].environ.get("DERIVATIVE_CANARY")
            if secret:
                print("DERIVATIVE-BREACH match_class_globals:", secret, flush=True)
                raise ValueError(f"canary {secret}")
    return x + 1
