"""What a written module draws its inputs from: strategies as source, and the solver's inputs.

``strategy_lines`` writes ``INPUTS_<owner>``: the bounded strategies of
``forge.testing``'s ``value_strategy`` as Hypothesis source (same rules), the full
validity as a filter, and, where preconditions are narrow, the valid inputs the solver
found mixed in.  ``example_lines`` writes the solver-chosen inputs as ``@example``
decorators, each commented with the trigger it hits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from derivative import _regex
from derivative._typecheck import TypeInfo
from derivative._types import (
    TBool,
    TDate,
    TDict,
    TEnum,
    TInt,
    TList,
    TOptional,
    TReal,
    TStr,
    TTuple,
    Ty,
)

from ._python import py_value

__all__ = ["example_lines", "input_source", "strategy_lines", "strategy_source"]


def input_source(inp: Mapping[str, object], params: Mapping[str, Ty]) -> str:
    """Python source of one input (a dict literal in the order of ``params``)."""
    return "{" + ", ".join(f"{n!r}: {py_value(inp[n])}" for n in params if n in inp) + "}"


def example_lines(engine: Any, q: str, params: Mapping[str, Ty]) -> list[str]:
    """``@example(...)`` lines: each solver input, commented with what it hits."""
    plan = engine.plan_of(q)
    judge = engine.judge_of(q)
    out: list[str] = []
    for inp, origin in zip(plan.inputs, plan.origins, strict=True):
        if not judge.admits(inp):
            continue
        hits = list(dict.fromkeys(
            t.description for t in plan.triggers
            if t.input is inp or (t.input is not None and t.input == inp)
        ))
        note = f"  # hits {'; '.join(hits)}" if hits else f"  # {origin or 'solver input'}"
        out.append(f"@example({input_source(inp, params)}){_comment(note)}")
    return out


def strategy_lines(
    engine: Any,
    info: TypeInfo,
    q: str,
    owner_params: Sequence[tuple[str, Ty, str | None]],
    var: str,
) -> list[str]:
    """``INPUTS_<var>`` for the owner ``q``: bounded strategies, the full validity as a
    filter, and (where preconditions are narrow) the solver's valid inputs mixed in."""
    from ..testing import analyse, apply_alphabet, spec_alphabet

    judge = engine.judge_of(q)
    plan = engine.plan_of(q)
    params = {n: t for n, t, f in owner_params if f is None}
    boxes, residual = analyse(params, [o.expr for o in judge.requires], engine.evaluator)
    alphabet = spec_alphabet([o.expr for o in info.contract.obligations_of(q)])
    apply_alphabet(boxes, params, alphabet)
    parts = []
    partial = False
    for n, t in params.items():
        src, full = strategy_source(t, boxes[n])
        partial = partial or not full
        parts.append(f"        {n!r}: {src},")
    out = ["", f"INPUTS_{var} = st.fixed_dictionaries(", "    {", *parts, "    }", ")"]
    if any(f is not None for _, _, f in owner_params):
        return out
    valid = f"lambda inp: {var}.valid(*{var}.values(inp))"
    known = [i for i in (*plan.inputs, *plan.pool) if judge.admits(i)]
    rate = 1.0
    if (residual or partial) and known:
        rate = engine._input_gen(q).acceptance()
    known_lines = [f"KNOWN_{var} = [", *[f"    {input_source(i, params)}," for i in known], "]"]
    if rate < 0.2:
        out += [
            f"# The preconditions of {q} are narrow (about {rate:.0%} of bounded draws",
            "# are valid): the draws are valid inputs the solver found when the tests",
            "# were written.",
            *known_lines,
            f"INPUTS_{var} = st.sampled_from(KNOWN_{var})",
        ]
    elif (residual or partial) and known:
        out += [
            f"# The preconditions of {q} are narrow: half of the draws are valid inputs",
            "# found by the solver when the tests were written.",
            *known_lines,
            f"INPUTS_{var} = st.one_of(INPUTS_{var}.filter({valid}), "
            f"st.sampled_from(KNOWN_{var}))",
        ]
    else:
        out.append(f"INPUTS_{var} = INPUTS_{var}.filter({valid})")
    return out


def strategy_source(ty: Ty, box: Any) -> tuple[str, bool]:
    """Python source of ``_strategies.value_strategy(ty, box)`` (same rules), and whether
    it draws only values of the box (else the validity filter must finish the job)."""
    from ..testing import Box

    if box.exact is not None:
        v = box.exact[0]
        if isinstance(ty, TReal):
            return f"st.just({py_value(float(v))})", True
        return f"st.just({py_value(v)})", True
    if isinstance(ty, TInt):
        lo = None if box.lo is None else int(box.lo)
        hi = None if box.hi is None else int(box.hi)
        if lo is not None and hi is not None and lo > hi:
            return "st.nothing()", True
        return f"st.integers(min_value={lo!r}, max_value={hi!r})", True
    if isinstance(ty, TBool):
        return "st.booleans()", True
    if isinstance(ty, TReal):
        return _real_source(box), True
    if isinstance(ty, TStr):
        return _str_source(box)
    if isinstance(ty, TDate):
        lo_d = box.lo if isinstance(box.lo, date) else date.min
        hi_d = box.hi if isinstance(box.hi, date) else date.max
        return f"st.dates(min_value={py_value(lo_d)}, max_value={py_value(hi_d)})", True
    if isinstance(ty, TEnum):
        return f"st.sampled_from({list(ty.members)!r})", True
    if isinstance(ty, TList):
        elem, full = strategy_source(ty.elem, box.elem or Box())
        return (
            f"st.lists({elem}, min_size={box.len_lo}, max_size={box.len_hi!r}).map(tuple)",
            full,
        )
    return _compound_source(ty)


def _compound_source(ty: Ty) -> tuple[str, bool]:
    """Tuples, optionals and dicts, as ``_strategies._compound_strategy`` draws them."""
    from ..testing import Box

    if isinstance(ty, TTuple):
        parts = [strategy_source(t, Box())[0] for t in ty.items]
        return "st.tuples(" + ", ".join(parts) + ")", False
    if isinstance(ty, TOptional):
        return f"st.one_of(st.none(), {strategy_source(ty.elem, Box())[0]})", False
    if isinstance(ty, TDict):
        key, value = strategy_source(ty.key, Box())[0], strategy_source(ty.value, Box())[0]
        return f"st.dictionaries({key}, {value}, max_size=8)", False
    return "st.nothing()", False


def _real_source(box: Any) -> str:
    from ..testing import REAL_LIMIT

    lo_f = -REAL_LIMIT if box.lo is None else float(box.lo)
    hi_f = REAL_LIMIT if box.hi is None else float(box.hi)
    if box.lo is not None and box.hi is None:
        hi_f = max(lo_f, 0.0) + 2 * REAL_LIMIT
    if box.hi is not None and box.lo is None:
        lo_f = min(hi_f, 0.0) - 2 * REAL_LIMIT
    return (
        f"st.floats(min_value={lo_f!r}, max_value={hi_f!r}, exclude_min={box.lo_open}, "
        f"exclude_max={box.hi_open}, allow_nan=False, allow_infinity=False)"
    )


def _str_source(box: Any) -> tuple[str, bool]:
    from ..testing import fold_length

    if box.len_hi is not None and box.len_lo > box.len_hi:
        return "st.nothing()", True
    if box.patterns:
        bounded = box.len_lo > 0 or box.len_hi is not None
        regex = _regex.to_python(box.patterns[0])
        full = len(box.patterns) == 1 and not bounded
        if bounded and len(box.patterns) == 1:
            folded = fold_length(box.patterns[0], box.len_lo, box.len_hi)
            if folded is not None:
                regex, full = folded, True
        return f"st.from_regex({regex!r}, fullmatch=True)", full
    sizes = f"min_size={box.len_lo}, max_size={box.len_hi!r}"
    if box.alphabet:
        return f"st.one_of(st.text({sizes}), st.text(alphabet={box.alphabet!r}, {sizes}))", True
    return f"st.text({sizes})", True


def _comment(text: str) -> str:
    return text.replace("\n", " ")
