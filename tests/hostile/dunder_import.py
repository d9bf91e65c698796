"""Hostile: import os by a computed name through __import__."""


def f(x: int) -> int:
    secret = __import__("o" + "s").environ.get("DERIVATIVE_CANARY")
    if secret:
        print("DERIVATIVE-BREACH dunder_import:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
