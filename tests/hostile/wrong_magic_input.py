"""Innocent-looking, wrong: one input (48879, 0xBEEF) gives 0.

Random testing rarely hits a single value; the contract's boundary values will not
either.  It is here to show what testing cannot promise.
"""

_CACHE = {48879: 0}


def f(x: int) -> int:
    """The successor of x, memoised for hot values."""
    if x in _CACHE:
        return _CACHE[x]
    return x + 1
