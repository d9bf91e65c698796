"""Hostile: print 200 MB to standard output (bounded), with print() only.

print is an ordinary builtin, so nothing for a static check to see; the worker must
not read the candidate's stdout as its channel, and output must be capped.
"""

CHUNK = "A" * (1 << 20)


def f(x: int) -> int:
    for _ in range(200):
        print(CHUNK, end="")
    print(flush=True)
    return x + 1
