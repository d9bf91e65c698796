"""Hostile: take eval out of the __builtins__ namespace, then import os through it."""


def f(x: int) -> int:
    space = __builtins__
    run = space["eval"] if isinstance(space, dict) else space.eval
    secret = run("__import__('os').environ.get('DERIVATIVE_CANARY')")
    if secret:
        print("DERIVATIVE-BREACH builtins_namespace:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
