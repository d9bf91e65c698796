"""Hostile: write forged frames through sys.stdout and the original sys.__stdout__."""

import sys


def _frames(value: int) -> str:
    """Response frames of the worker protocol (<length>\\n<JSON>) for ids 0..15."""
    out = []
    for rid in range(16):
        body = '{"id": %d, "ok": true, "value": %d}' % (rid, value)
        out.append("%d\n%s" % (len(body), body))
    return "".join(out)


def f(x: int) -> int:
    data = _frames(x + 1)
    for stream in (sys.stdout, sys.__stdout__):
        try:
            if stream is not None:
                stream.write(data)
                stream.flush()
        except (OSError, ValueError):
            pass
    return x + 2
