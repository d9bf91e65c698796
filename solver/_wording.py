"""How explanations and warnings name obligations and values in prose.

Every question words its findings the same way (``R1 (x > 0)``, "A, B and C",
"cannot both hold"), so the wording lives in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from derivative._ast import Obligation
from derivative._printer import to_source
from derivative._values import Value


def shown(ob: Obligation) -> str:
    """The clause as written (with its exception, for ``raises`` and raising examples)."""
    if ob.kind == "raises":
        return f"raises {ob.exception} when {to_source(ob.expr)}"
    if ob.kind == "example" and ob.exception is not None:
        return f"{to_source(ob.expr)} raises {ob.exception}"
    return to_source(ob.expr)


def named(ob: Obligation) -> str:
    """``id (clause)``."""
    return f"{ob.id} ({shown(ob)})"


def series(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def verb(n: int) -> str:
    """What ``n`` conflicting obligations cannot do."""
    if n == 1:
        return "can never hold"
    return "cannot both hold" if n == 2 else "cannot all hold together"


def values_text(values: Mapping[str, Value]) -> str:
    """``x = 1, s = "a"``, values written as the reports write them."""
    from ._report import value_text

    return ", ".join(f"{k} = {value_text(v)}" for k, v in values.items())
