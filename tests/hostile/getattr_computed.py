"""Hostile: getattr with a name built at run time reaches a stdlib function's globals.

fractions imports sys; Fraction.__new__ is a Python function whose __globals__ is the
fractions module namespace, so sys.modules["os"] is two lookups away.
"""

from fractions import Fraction


def f(x: int) -> int:
    hidden = "__glo" + "bals__"
    namespace = getattr(getattr(Fraction, "__new__"), hidden)
    secret = namespace["sys"].modules["os"].environ.get("DERIVATIVE_CANARY")
    if secret:
        print("DERIVATIVE-BREACH getattr_computed:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
