"""How hard one question may try: resource limits that grow with the question.

``--rlimit`` (``CheckOptions.rlimit``) is the *base* of Z3's deterministic resource
limit.  A question over many obligations needs proportionally more of Z3's units just
to take them in: measured on ``benchmarks/growth.py``'s sheets, Z3 spends 55 to 66 units
per member to decide them, linearly from 1,000 to 125,000 members, so a fixed limit of
2,000,000 turned a consistent sheet of 20,000 independent requirements (40,000 members
with the params' ranges) into ``unknown``, and the planted conflict of 50,000.  So each
question's limit is (docs/decisions.md, "Resource limits grow with the question")::

    rlimit(question) = min(Z3_RLIMIT_MAX, max(base, base * size // RLIMIT_SCALE_SIZE))

where ``size`` is the number of constraints the question asserts: its members (each
obligation, each param's range) and its background constraints (variables' domains,
valid inputs).  Up to ``RLIMIT_SCALE_SIZE`` constraints the limit is the base itself,
exactly as before; beyond, every constraint brings ``base / RLIMIT_SCALE_SIZE`` units
(400 at the default base, six times what the sheets measured need).  It counts
constraints, never seconds, so the same input gets the same limit on any machine.

A question that still runs out says so with a ``Limit``: which limit, its value, how it
came about and the flag that raises it.
"""

from __future__ import annotations

from . import _result
from ._result import Limit

RLIMIT_SCALE_SIZE = _result.RLIMIT_SCALE_SIZE
"""Constraints a question may assert within the base limit; each one beyond adds
``base / RLIMIT_SCALE_SIZE`` units (defined with ``CheckOptions``, which documents it)."""
Z3_RLIMIT_MAX = 2**32 - 1
"""Z3 reads ``rlimit`` as an unsigned 32-bit number: a larger value would wrap around."""
CVC5_RLIMIT_DIVISOR = 20
"""cvc5 gets ``rlimit / 20`` of its own resource units per strategy (``_cvc5``)."""


def scaled_rlimit(base: int, size: int) -> int:
    """The Z3 rlimit of a question asserting ``size`` constraints (the module's rule)."""
    return min(Z3_RLIMIT_MAX, max(base, base * size // RLIMIT_SCALE_SIZE))


def rlimit_of(base: int, size: int) -> Limit:
    """The ``Limit`` a question of ``size`` constraints runs under, with its derivation."""
    value = scaled_rlimit(base, size)
    if value == base:
        how = f"--rlimit {base:,}"
    elif value == Z3_RLIMIT_MAX:
        how = f"--rlimit {base:,} scaled to {size:,} constraints, capped at Z3's largest"
    else:
        how = (
            f"--rlimit {base:,} scaled by the question's {size:,} constraints "
            f"/ {RLIMIT_SCALE_SIZE:,}"
        )
    return Limit("rlimit", value, "--rlimit", how)


def cvc5_limit(z3_limit: Limit) -> Limit:
    """cvc5's per-strategy limit for a question whose Z3 limit is ``z3_limit``."""
    value = max(1, z3_limit.value // CVC5_RLIMIT_DIVISOR)
    return Limit(
        "cvc5 rlimit",
        value,
        z3_limit.flag,
        f"the question's Z3 rlimit {z3_limit.value:,} / {CVC5_RLIMIT_DIVISOR}",
    )


def reached(limit: Limit) -> str:
    """The ``unknown`` reason of a question that ran out of ``limit`` (a solver's)."""
    who = "Z3 rlimit" if limit.name == "rlimit" else limit.name
    return (
        f"resource limit reached: the {who} of {limit.value:,} units is used up "
        f"({limit.detail}); raise {limit.flag} to try harder"
    )
