"""Names the language knows without a declaration: built-in functions and exceptions.

``BUILTIN_FUNCTIONS`` is the one list of built-in functions and their arities.  Every
reading derives its list from it: the type checker (``_builtin_<name>`` methods), the
evaluator (its ``_BUILTINS`` table), the Z3 encoder (``_call_<name>`` methods), the
SMT-LIB printer (its ``_BUILTIN_CALLS`` table), the generated Python (a branch of
``PyCompiler.visit_call``) and the printer (calls are printed by name, whatever the
name).  What a built-in *means* is written separately in each reading, on purpose:
the readings are checked against each other, so none may borrow another's semantics.
``tests/unit/test_readings.py`` fails when a name here has no handler in a reading.
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
    # list built-ins of issue 16 (slicing and comprehensions are syntax, not names)
    "product": (1, 1, "product(xs)"),
    "reversed": (1, 1, "reversed(xs)"),
    # text built-ins (ASCII case and white space; docs/language.md §7.5)
    "lower": (1, 1, "lower(s)"),
    "upper": (1, 1, "upper(s)"),
    "strip": (1, 1, "strip(s)"),
    "split": (2, 2, "split(s, sep)"),
    "join": (2, 2, "join(sep, xs)"),
    "ord": (1, 1, "ord(c)"),
    "chr": (1, 1, "chr(n)"),
    # tuples, optionals and dicts (docs/language.md §6.5-6.7)
    "get": (2, 3, "get(d, k) / get(d, k, default)"),
    "keys": (1, 1, "keys(d)"),
    "value": (1, 1, "value(x)"),
}
"""Built-in functions of docs/language.md §7.5 (``all``/``any`` are generator forms, and
``date("...")`` is a literal, so neither is here)."""


def is_builtin(name: str) -> bool:
    """Whether ``name`` is a built-in function (not a spec function or operation)."""
    return name in BUILTIN_FUNCTIONS


def takes(name: str, n: int) -> bool:
    """Whether the built-in ``name`` may be called with ``n`` arguments."""
    lo, hi, _ = BUILTIN_FUNCTIONS[name]
    return lo <= n and (hi is None or n <= hi)

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
