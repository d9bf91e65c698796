"""Hostile: a module namespace from vars(), indexed with a key built at run time."""

import fractions


def f(x: int) -> int:
    namespace = vars(fractions)
    key = "s" + "ys"
    secret = namespace[key].modules["os"].environ.get("DERIVATIVE_CANARY")
    if secret:
        print("DERIVATIVE-BREACH vars_computed_key:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
