"""Hostile: lift the recursion limit and recurse until the C stack overflows (a crash)."""

import sys


def _down(n: int) -> int:
    return _down(n + 1) + 1


def f(x: int) -> int:
    sys.setrecursionlimit(1_000_000)
    try:
        _down(0)
    except RecursionError:
        pass
    return x + 1
