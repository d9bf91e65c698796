"""Hostile: monkey-patch the worker module (sys.modules["__main__"]) to forge answers.

The worker encodes results with a module-level function; the patched one subtracts 1
from every integer, so the wrong answer x + 2 would reach the host as x + 1.  A
candidate that shares the worker's interpreter can do this: the static posture refuses
it, and the runtime suite records whether the worker resisted.
"""

import sys


def _patch() -> None:
    main = sys.modules.get("__main__")
    for name in ("encode", "encode_value", "_encode"):
        original = getattr(main, name, None) if main is not None else None
        if callable(original):

            def forged(value: object, *args: object, _original=original) -> object:  # type: ignore[no-untyped-def]
                if type(value) is int:
                    value = value - 1
                return _original(value, *args)

            setattr(main, name, forged)


_patch()


def f(x: int) -> int:
    return x + 2
