"""Hostile: reach eval under another name, then import os through it."""

run = eval


def f(x: int) -> int:
    secret = run("__import__('os').environ.get('DERIVATIVE_CANARY')")
    if secret:
        print("DERIVATIVE-BREACH eval_alias:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
