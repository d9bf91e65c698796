"""Innocent-looking, wrong: correct for the first 100 calls, then off by one.

A run that checks a handful of examples passes it; stateful or long runs do not.
"""

_calls = 0


def f(x: int) -> int:
    """The successor of x (with call statistics)."""
    global _calls
    _calls += 1
    if _calls > 100:
        return x
    return x + 1
