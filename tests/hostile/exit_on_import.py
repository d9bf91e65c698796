"""Hostile: end the interpreter (the worker) while being imported."""

import os


def f(x: int) -> int:
    return x + 1


os._exit(0)
