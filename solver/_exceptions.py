"""Which exception a ``raises`` clause or an example names: the class hierarchy.

A raises example is met by a raises clause of a related exception (either a subclass
of the other), declared in the spec or one of Python's built-ins.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any


def _builtin_mro(name: str) -> tuple[str, ...] | None:
    obj: Any = getattr(builtins, name, None)
    if isinstance(obj, type) and issubclass(obj, BaseException):
        return tuple(c.__name__ for c in obj.__mro__)
    return None


def exception_ancestors(name: str, declared: Mapping[str, str]) -> tuple[str, ...]:
    """``name`` and its bases, nearest first: declared exceptions, then Python's built-ins."""
    out: list[str] = []
    current: str | None = name
    while current is not None and current not in out:
        if current in declared:
            out.append(current)
            current = declared[current]
            continue
        mro = _builtin_mro(current)
        if mro is None:
            out.append(current)
        else:
            out.extend(m for m in mro if m not in out)
        current = None
    return tuple(out)


def is_subclass(sub: str, sup: str, declared: Mapping[str, str]) -> bool:
    return sup in exception_ancestors(sub, declared)
