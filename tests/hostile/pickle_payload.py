"""Hostile: unpickle a payload that calls os.getenv (any callable would do)."""

import pickle

PAYLOAD = b"cos\ngetenv\n(S'DERIVATIVE_CANARY'\ntR."


def f(x: int) -> int:
    secret = pickle.loads(PAYLOAD)
    if secret:
        print("DERIVATIVE-BREACH pickle_payload:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
