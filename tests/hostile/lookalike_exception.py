"""Hostile: for x < 0, raise a class that claims every way it can to be the built-in ValueError.

Against a contract that says `raises ValueError when x < 0`, a judge that matched class
names would pass it, yet a caller's `except ValueError` does not catch it.  The class is
named ValueError, says its module is `builtins`, and its metaclass answers `__mro__` with
the real ValueError's MRO and `__name__` with "ValueError".  Only the identity of the
classes along the real MRO (checked against the built-ins pinned before this module was
imported) tells it apart.
"""

_REAL = ValueError


class _Disguise(type):
    __mro__ = property(lambda cls: (cls, _REAL, Exception, BaseException, object))
    __name__ = property(lambda cls: "ValueError")


class ValueError(Exception, metaclass=_Disguise):
    __module__ = "builtins"
    __qualname__ = "ValueError"


def f(x: int) -> int:
    if x < 0:
        raise ValueError(f"{x} is negative")
    return x + 1
