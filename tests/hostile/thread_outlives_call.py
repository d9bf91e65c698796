"""Hostile: leave a non-daemon thread running after the call returns.

The thread keeps printing frame-shaped noise for up to 600 s and, being non-daemon,
keeps the interpreter from exiting: the sandbox must kill the whole process tree.
"""

import threading
import time


def _haunt() -> None:
    deadline = time.monotonic() + 600.0
    while time.monotonic() < deadline:
        print('34\n{"id": 1, "ok": true, "value": 1}', flush=True)
        time.sleep(0.5)


def f(x: int) -> int:
    threading.Thread(target=_haunt, daemon=False).start()
    return x + 1
