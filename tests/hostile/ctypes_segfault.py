"""Hostile: crash the worker with a segmentation fault through ctypes."""

import ctypes


def f(x: int) -> int:
    ctypes.string_at(0)
    return x + 1
