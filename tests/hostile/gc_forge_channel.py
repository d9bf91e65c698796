"""Hostile: find the worker's channel object with gc and send forged responses on it.

The answer x + 2 is wrong; forged frames claiming x + 1 for ids 0..15 go out first
through the worker's own send method.  The host must reject frames it did not ask for.
"""

import gc


def f(x: int) -> int:
    for obj in gc.get_objects():
        send = getattr(obj, "send", None)
        if callable(send) and hasattr(obj, "wfd"):
            for rid in range(16):
                try:
                    send({"id": rid, "ok": True, "value": x + 1})
                except Exception:
                    pass
    return x + 2
