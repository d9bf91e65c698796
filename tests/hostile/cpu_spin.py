"""Hostile: spin the CPU (bounded at 600 s so that a failed isolation ends by itself).

Only allowed modules (time.monotonic): nothing for a static check to see.  The call's
time limit must kill it.
"""

import time


def f(x: int) -> int:
    deadline = time.monotonic() + 600.0
    spins = 0
    while time.monotonic() < deadline:
        spins += 1
    print("DERIVATIVE-BREACH cpu_spin: spun for 600 s", flush=True)
    return x + 1
