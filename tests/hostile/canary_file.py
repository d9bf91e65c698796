"""Hostile: read a host secret file and leak it.

The path comes from DERIVATIVE_CANARY_FILE when the environment carries it (it should
not), else the well-known places the sandbox test uses.
"""

import os

FALLBACKS = ("/tmp/derivative-hostile/canary", "/var/tmp/derivative-hostile/canary")


def f(x: int) -> int:
    paths = [os.environ.get("DERIVATIVE_CANARY_FILE", ""), *FALLBACKS]
    for path in paths:
        if not path:
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                secret = fh.read().strip()
        except OSError:
            continue
        if secret:
            print("DERIVATIVE-BREACH canary_file:", path, secret, flush=True)
            raise ValueError(f"canary {secret}")
    return x + 1
