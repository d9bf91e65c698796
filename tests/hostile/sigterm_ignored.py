"""Hostile: ignore SIGTERM, SIGINT and SIGHUP, then sleep: only SIGKILL ends it."""

import signal
import time


def f(x: int) -> int:
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    time.sleep(600.0)
    return x + 1
