"""Hostile: sleep (600 s, practically forever) inside the call."""

import time


def f(x: int) -> int:
    time.sleep(600.0)
    print("DERIVATIVE-BREACH sleep_forever: slept 600 s", flush=True)
    return x + 1
