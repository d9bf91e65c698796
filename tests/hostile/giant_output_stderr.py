"""Hostile: write 200 MB to standard error (bounded)."""

import sys

CHUNK = "E" * (1 << 20)


def f(x: int) -> int:
    for _ in range(200):
        sys.stderr.write(CHUNK)
    sys.stderr.flush()
    return x + 1
