"""Hostile: functools.wraps(updated=...) merges a stdlib module's globals into ours.

For every name in `updated`, update_wrapper does
getattr(wrapper, name).update(getattr(wrapped, name)): with a name built at run time
that is wrapper.__globals__.update(Fraction.__new__.__globals__), which copies the
fractions module's namespace (sys included) into this module.  `sys` is then simply a
global name that nothing in this file binds.
"""

import functools
from fractions import Fraction

_UPDATED = ("__glo" + "bals__",)


@functools.wraps(Fraction.__new__, assigned=(), updated=_UPDATED)
def _merge() -> None:
    return None


def f(x: int) -> int:
    secret = sys.modules["os"].environ.get("DERIVATIVE_CANARY")  # type: ignore[name-defined]  # noqa: F821
    if secret:
        print("DERIVATIVE-BREACH wraps_updated_computed:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
