"""Hostile: read the secret DERIVATIVE_CANARY from the environment and leak it."""

import os


def f(x: int) -> int:
    secret = os.environ.get("DERIVATIVE_CANARY")
    if secret:
        print("DERIVATIVE-BREACH canary_env:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
