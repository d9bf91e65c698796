"""One or two plain sentences that tell a requirement author what conflicts.

The explanation names every core member by id, with its quoted text where it has
one and the expression it asserts, says what the conflict means for the kind of
certificate, and, when the core is linear, how adding the rows gives ``0 <= c < 0``.
It is written for people; nothing checks it (the hash covers it).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

__all__ = ["explain"]


def _member(ident: str, text: str | None, expr: str) -> str:
    quoted = f' "{text}"' if text else ""
    return f"{ident}{quoted} ({expr})"


def _series(items: Sequence[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _combination(farkas: Sequence[tuple[str, Fraction]]) -> str:
    """How the members' linear rows are combined, in words: "Adding A and B as linear
    inequalities", or "Multiplying A by 4 and adding B as ..." when a multiplier is not 1."""
    scaled = [f"{i} by {y}" for i, y in farkas if y != 1]
    plain = [i for i, y in farkas if y == 1]
    if scaled and plain:
        return f"Multiplying {_series(scaled)} and adding {_series(plain)} as linear inequalities"
    if len(scaled) > 1:
        return f"Multiplying {_series(scaled)} and adding them as linear inequalities"
    if scaled:
        ident, y = next((i, y) for i, y in farkas if y != 1)
        return f"Read as a linear inequality and multiplied by {y}, {ident}"
    if len(plain) == 1:
        return f"Read as a linear inequality, {plain[0]}"
    return f"Adding {_series(plain)} as linear inequalities"


def explain(
    kind: str,
    members: Sequence[tuple[str, str | None, str]],
    *,
    subject: str | None,
    variables: Sequence[str],
    witness: str | None,
    example_ids: Sequence[str] = (),
    farkas: Sequence[tuple[str, Fraction]] | None = None,
    farkas_bound: Fraction | None = None,
) -> str:
    """The explanation of a certificate.

    ``members``: ``(id, quoted text or None, expression)`` in core order; ``witness``
    the witness input written out (``x = 3, s = "a"``); ``farkas`` the members'
    summed multipliers (non-zero ones) and ``farkas_bound`` the resulting ``c``.
    """
    named = [_member(i, t, e) for i, t, e in members]
    verb = (
        "cannot hold"
        if len(named) == 1
        else ("cannot both hold" if len(named) == 2 else "cannot all hold together")
    )
    if kind == "inconsistent_requirements":
        names = ", ".join(variables) if variables else "the params"
        first = f"{_series(named)} {verb}: no value of {names} satisfies them at once."
    elif kind == "unsatisfiable_precondition":
        first = f"The requires clauses {_series(named)} of {subject} {verb}: no input is valid."
    elif kind == "contradicting_example":
        examples = [n for n, (i, _, _) in zip(named, members, strict=True) if i in example_ids]
        others = [n for n, (i, _, _) in zip(named, members, strict=True) if i not in example_ids]
        if examples and others:
            first = (
                f"At the input {witness}, the example {_series(examples)} contradicts "
                f"{_series(others)}: no call of {subject} at that input satisfies them all."
            )
        else:
            first = (
                f"At the input {witness}, {_series(named)} {verb}: "
                f"no behaviour of {subject} satisfies the example."
            )
    else:
        first = (
            f"At the input {witness}, which satisfies every requires clause and no raises "
            f"condition of {subject}, no result satisfies {_series(named)}."
        )
    if not farkas or farkas_bound is None:
        return first
    return f"{first} {_combination(farkas)} gives 0 <= {farkas_bound}, which is false."
