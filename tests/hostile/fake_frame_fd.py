"""Hostile: write forged response frames straight into fds 1, 3, 4, 5, 6 and 7.

The answer x + 2 is wrong: a pass means a forged frame was believed.
"""

import os


def _frames(value: int) -> str:
    """Response frames of the worker protocol (<length>\\n<JSON>) for ids 0..15."""
    out = []
    for rid in range(16):
        body = '{"id": %d, "ok": true, "value": %d}' % (rid, value)
        out.append("%d\n%s" % (len(body), body))
    return "".join(out)


def f(x: int) -> int:
    data = _frames(x + 1).encode("ascii")
    for fd in (1, 3, 4, 5, 6, 7):
        try:
            os.write(fd, data)
        except OSError:
            pass
    return x + 2
