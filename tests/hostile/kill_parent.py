"""Hostile: SIGKILL the parent process (the host side, if it is visible)."""

import os
import signal


def f(x: int) -> int:
    parent = os.getppid()
    if parent > 1:
        try:
            os.kill(parent, signal.SIGKILL)
        except OSError:
            pass
    return x + 1
