"""One or two plain sentences that tell a requirement author what conflicts.

The explanation names every core member by id, with its quoted text where it has
one and the expression it asserts, says what the conflict means for the kind of
certificate, and, when the core is linear, how adding the rows gives ``0 <= c < 0``.

It is written for people, and people believe it, so it is derived from the certificate
alone: ``explain_core`` writes it from the core as read back (``_reading``), the Farkas
multipliers and, for a raises example, the exception's name.  The builder writes it that
way and the verifier writes it again and compares, so an explanation that says anything
else than the core is a reason to reject the certificate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from derivative._ast import BoolOp, Call, Expr, make_boolop
from derivative._printer import to_source

from ._formula import example_pins
from ._jsonvalue import literal

if TYPE_CHECKING:
    from ._reading import Reading

__all__ = ["explain", "explain_core", "farkas_weights", "raises_example_parts"]


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


def raises_example_parts(
    expr: Expr, params: Sequence[str], call_name: str
) -> tuple[str, str] | None:
    """The call and the condition of a raises example's asserted expression, as text.

    ``_formula.core_formula`` writes ``example: f(args) raises E`` as
    ``p1 == a1 and ... and pn == an and (C)``; this reads back ``f(args)`` and ``C``
    (None when ``expr`` does not have that shape).
    """
    pins = example_pins(expr, params)
    if pins is None:
        return None
    condition: Expr = expr
    if params and isinstance(expr, BoolOp) and expr.op == "and":
        rest = expr.operands[len(params):]  # the pins come first in the one ``and`` run
        condition = rest[0] if len(rest) == 1 else make_boolop("and", rest)
    return to_source(Call(func=call_name, args=tuple(pins))), to_source(condition)


def _raises_text(call: str, exception: str, condition: str) -> str:
    """How the explanation shows ``example: call raises exception``: what it needs."""
    if condition == "false":
        return f"{call} raises {exception}, but no raises clause allows it"
    return f"{call} raises {exception}, which needs {condition}"


def _witness_text(reading: Reading) -> str | None:
    """The witness input written out in parameter order (``x = 3, s = "a"``)."""
    if reading.witness is None:
        return None
    return ", ".join(
        f"{name} = {to_source(literal(reading.witness[name], ty))}"
        for name, ty in reading.variables.items()
        if name in reading.witness
    )


def farkas_weights(
    row_ids: Sequence[str], multipliers: Sequence[Fraction], ids: Sequence[str]
) -> list[tuple[str, Fraction]]:
    """Each member's total multiplier over its rows (members in ``ids`` order, zero
    totals left out): how the explanation says the rows are combined."""
    weights: dict[str, Fraction] = {}
    for ident, y in zip(row_ids, multipliers, strict=True):
        if y:
            weights[ident] = weights.get(ident, Fraction(0)) + y
    return [(i, weights[i]) for i in ids if i in weights]


def explain_core(
    kind: str,
    reading: Reading,
    texts: Sequence[str | None],
    *,
    raises: Mapping[str, str],
    examples: Sequence[str],
    farkas: Sequence[tuple[str, Fraction]] | None = None,
    farkas_bound: Fraction | None = None,
) -> str | None:
    """The explanation of a core as read back (None: a raises example has no such shape).

    ``texts`` are the members' quoted texts in core order; ``raises`` maps the id of each
    raises example to its exception's name; ``examples`` are the ids of every example
    member (raises examples included); ``farkas`` and ``farkas_bound`` as ``explain``.
    """
    params = list(reading.variables)
    members: list[tuple[str, str | None, str]] = []
    for ident, text, expr in zip(reading.ids, texts, reading.exprs, strict=True):
        shown = to_source(expr)
        if ident in raises:
            parts = raises_example_parts(expr, params, reading.call_name or "")
            if parts is None:
                return None
            shown = _raises_text(parts[0], raises[ident], parts[1])
        members.append((ident, text, shown))
    variables = sorted(
        {n for e in reading.exprs for n in _free(e) if n in reading.variables}
    )
    return explain(
        kind,
        members,
        subject=reading.subject,
        variables=variables,
        witness=_witness_text(reading),
        example_ids=examples,
        farkas=farkas,
        farkas_bound=farkas_bound,
    )


def _free(expr: Expr) -> set[str]:
    from derivative._walk import free_names

    return set(free_names(expr))
