"""Hostile: print forged response frames (claiming x + 1) and return a wrong answer.

print only: nothing for a static check to see.  If the host took stdout for the
channel, it would read the forged correct answer; the real answer x + 2 is wrong, so a
pass means the forgery worked.
"""


def _frames(value: int) -> str:
    """Response frames of the worker protocol (<length>\\n<JSON>) for ids 0..15."""
    out = []
    for rid in range(16):
        body = '{"id": %d, "ok": true, "value": %d}' % (rid, value)
        out.append("%d\n%s" % (len(body), body))
    return "".join(out)


def f(x: int) -> int:
    print(_frames(x + 1), end="", flush=True)
    return x + 2
