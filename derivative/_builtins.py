"""Names the language knows without a declaration: built-in functions and exceptions.

Kept apart from the type checker so that the evaluator, the Z3 encoding and the
test generator can ask "is this a built-in?" without importing the checker, and
so that the table of arities that the checker enforces is written down once.
"""

from __future__ import annotations

import builtins
from typing import Final

BUILTIN_FUNCTIONS: Final[dict[str, tuple[int, int | None, str]]] = {
    # name: (min arity, max arity or None, how it is written, for messages)
    "len": (1, 1, "len(s) / len(xs)"),
    "abs": (1, 1, "abs(n)"),
    "min": (1, None, "min(a, b, ...) / min(xs)"),
    "max": (1, None, "max(a, b, ...) / max(xs)"),
    "sum": (1, 1, "sum(xs)"),
    "int": (1, 1, "int(s)"),
    "str": (1, 1, "str(n)"),
    "matches": (2, 2, 'matches(s, "RE")'),
    "startswith": (2, 2, "startswith(s, p)"),
    "endswith": (2, 2, "endswith(s, p)"),
    "contains": (2, 2, "contains(s, p)"),
    "occurrences": (2, 2, "occurrences(xs, v)"),
    "sorted": (1, 1, "sorted(xs)"),
}
"""Built-in functions of LANGUAGE.md §4 (``all``/``any`` are generator forms, and
``date("...")`` is a literal, so neither is here)."""

BUILTIN_EXCEPTIONS: Final[dict[str, type[BaseException]]] = {
    name: obj
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, BaseException)
}
"""Python's built-in exception classes by name: usable in ``raises`` undeclared."""


def builtin_exception_mro(name: str) -> tuple[str, ...]:
    """Class names from ``name`` up to ``BaseException`` (empty if not built-in)."""
    cls = BUILTIN_EXCEPTIONS.get(name)
    if cls is None:
        return ()
    return tuple(c.__name__ for c in cls.__mro__ if c is not object)
