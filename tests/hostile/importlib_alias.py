"""Hostile: import os by a computed name through an aliased importlib."""

import importlib as il


def f(x: int) -> int:
    system = il.import_module("o" + "s")
    secret = system.environ.get("DERIVATIVE_CANARY")
    if secret:
        print("DERIVATIVE-BREACH importlib_alias:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
