"""Hostile: raise SystemExit inside the call, hoping the worker lets it end the process."""


def f(x: int) -> int:
    raise SystemExit(0)
