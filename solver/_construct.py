"""Inputs built directly, not solved: sizes the solver cannot reach (``construct``).

A contract such as ``requires len(arr) <= 1000`` and ``forall i in 0..len(arr) - 1:
-1000 <= arr[i] <= 1000`` makes ``len(arr) == 1000`` a boundary the tests must hit, and
no solver in its resource limit builds a model with a thousand constrained elements: it
says ``unknown``, and random search never draws a list that long.  The input is easy to
*build*, though: take a valid input the plan already has and stretch or cut one of its
lists or strings to the length the trigger names, filling the new places with what is
already there (the elements cycled, the last one repeated, an integer run continued),
which keeps per-element, sortedness and distinctness requirements true as often as
possible.  Nothing is assumed: the evaluator (the reference meaning) must agree that the
built input hits the trigger and that it is a valid input, or it is not used.

The lengths tried come from the integer constants of the trigger and of the owner's
``requires`` (each, one either side) and the small cases 0, 1 and 2, capped at
``MAX_LENGTH``: a length beyond that is a target the tool cannot build, which the run
reports as the tool's limit, never as the candidate's failure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Final

from derivative._ast import Expr, IntLit, Name
from derivative._types import TInt, TList, TStr, Ty, base
from derivative._walk import free_names, walk

__all__ = ["MAX_LENGTH", "construct", "int_constants", "is_sequence"]

MAX_LENGTH: Final = 100_000
"""The longest list or string built for a trigger (memory and evaluation stay bounded)."""
MAX_TEXT: Final = 1 << 19
"""The most characters a built value may take written out: half a channel frame (1 MiB),
so that the call carrying it always fits."""
_SEEDS: Final = 6
"""How many known valid inputs are stretched, at most, per trigger."""

Holds = Callable[[Expr, Mapping[str, object]], bool]


def construct(
    expr: Expr,
    context: Sequence[Expr],
    params: Sequence[tuple[str, Ty]],
    known: Sequence[Mapping[str, object]],
    constants: Sequence[int],
    *,
    holds: Holds,
    admits: Callable[[Mapping[str, object]], bool],
    strict: bool = False,
) -> dict[str, object] | None:
    """A valid input on which ``expr`` holds (and ``context`` too, if one can; ``strict``:
    only one where the context holds), or None.

    ``holds(expr, input)`` is the evaluator's truth; ``admits(input)`` its validity test;
    ``constants`` the integers worth trying as lengths (see the module docstring).
    """
    seqs = [(n, base(t)) for n, t in params
            if is_sequence(t) and n in _names_of(expr, context)]
    if not seqs:
        return None
    lengths = _lengths(constants)
    fallback: dict[str, object] | None = None
    for seed in list(known)[:_SEEDS]:
        for name, ty in seqs:
            for built in _stretched(seed, name, ty, lengths, known):
                if _text_size(built[name]) > MAX_TEXT:
                    continue
                if holds(expr, built) is not True or not admits(built):
                    continue
                if all(holds(c, built) is True for c in context):
                    return built
                if fallback is None and not strict:
                    fallback = built
    return fallback


def is_sequence(ty: Ty) -> bool:
    """Lists and strings: what ``construct`` can stretch."""
    return isinstance(base(ty), (TList, TStr))


def int_constants(exprs: Sequence[Expr], consts: Mapping[str, object]) -> list[int]:
    """The integer literals and integer constants ``exprs`` mention (for ``_lengths``)."""
    out: list[int] = []
    for e in exprs:
        for n in walk(e):
            if isinstance(n, IntLit):
                out.append(n.value)
            elif isinstance(n, Name) and isinstance(consts.get(n.id), int) \
                    and not isinstance(consts.get(n.id), bool):
                value = consts[n.id]
                assert isinstance(value, int)
                out.append(value)
    return out


def _text_size(value: object) -> int:
    """About how many characters ``value`` takes in a call's JSON (an upper estimate)."""
    if isinstance(value, str):
        return len(value) * 6 + 2  # every character escaped, at worst
    if isinstance(value, (list, tuple)):
        return sum(_text_size(v) + 1 for v in value) + 2
    return len(repr(value)) + 2


def _names_of(expr: Expr, context: Sequence[Expr]) -> frozenset[str]:
    names = set(free_names(expr))
    for c in context:
        names |= free_names(c)
    return frozenset(names)


def _lengths(constants: Sequence[int]) -> list[int]:
    """Lengths to try: each constant and one either side, then 0, 1, 2 (largest first:
    the small ones are what the solver and random inputs already reach)."""
    found = {c + d for c in constants for d in (-1, 0, 1)} | {0, 1, 2}
    return sorted((n for n in found if 0 <= n <= MAX_LENGTH), reverse=True)


def _stretched(
    seed: Mapping[str, object], name: str, ty: Ty, lengths: Sequence[int],
    known: Sequence[Mapping[str, object]],
) -> Iterator[dict[str, object]]:
    """``seed`` with ``name`` made each of ``lengths`` long, by each way of filling."""
    value = seed.get(name)
    if isinstance(ty, TStr) and isinstance(value, str):
        items: list[object] = list(value) or _some(name, known, str) or ["a"]
        for n in lengths:
            for fill in _fills(items, None):
                yield {**seed, name: "".join(str(c) for c in fill(n))}
    elif isinstance(ty, TList) and isinstance(value, (list, tuple)):
        items = list(value) or _some(name, known, (list, tuple)) or _default(base(ty.elem))
        if not items:
            return
        kind = type(value)  # the language's representation: what the seed holds
        for n in lengths:
            for fill in _fills(items, base(ty.elem)):
                yield {**seed, name: kind(fill(n))}


def _some(name: str, known: Sequence[Mapping[str, object]],
          kind: type | tuple[type, ...]) -> list[object]:
    """The elements of the first non-empty ``name`` among the known inputs."""
    for k in known:
        v = k.get(name)
        if isinstance(v, (str, list, tuple)) and isinstance(v, kind) and len(v) > 0:
            return list(v)
    return []


def _default(elem: Ty) -> list[object]:
    if isinstance(elem, TInt):
        lo = elem.lo if elem.lo is not None else 0
        return [lo if elem.hi is None or lo <= elem.hi else elem.hi]
    if isinstance(elem, TStr) and elem.pattern is None:
        return ["a"]
    return []


def _fills(items: list[object], elem: Ty | None) -> Iterator[Callable[[int], list[object]]]:
    """Ways to make ``items`` ``n`` long: cut, cycled, last repeated, an int run continued."""
    def cycled(n: int) -> list[object]:
        return [items[i % len(items)] for i in range(n)]

    def repeated(n: int) -> list[object]:
        return (items + [items[-1]] * n)[:n]

    yield cycled
    yield repeated
    ints = [v for v in items if isinstance(v, int) and not isinstance(v, bool)]
    if isinstance(elem, TInt) and len(ints) == len(items):
        step = ints[-1] - ints[-2] if len(ints) > 1 and ints[-1] != ints[-2] else 1

        def run(n: int, step: int = step) -> list[object]:
            grown: list[object] = list(ints[:n])
            while len(grown) < n:
                last = grown[-1]
                assert isinstance(last, int)
                grown.append(last + step)
            return grown

        yield run
