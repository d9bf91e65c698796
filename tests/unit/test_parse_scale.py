"""Reading a requirement set costs time linear in its declarations.

A sheet generated from a configuration can declare an enum of 100,000 members, thousands
of params or constants.  Each such file must be read (parsed and type-checked) in time
proportional to its length: one step that looks every new name up in a list of the names
seen so far makes the whole read quadratic, and a sheet ten times larger then takes a
hundred times longer.

How the tests tell linear from quadratic without depending on the machine's speed: each
measures the CPU time of this process (not the wall clock, which also counts other
processes' turns) for a declaration list of N and of 4N items, in the same process, best of
three runs taken alternately, and bounds the ratio by 8.  Linear code gives about 4 (less,
with the fixed costs of a read); a quadratic step gives about 16 once it dominates, which
it does at these sizes (measured before the fix: 12x for the enum, 15x for the constants).
The margin is 2x either way, and both sizes run under the same conditions a few
milliseconds apart, so a slower or busier machine scales both alike.

A chain of constants each defined from the next one down is read in dependency order, which
once took one nested call per link (3,000 links ended in an internal error).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from derivative import api
from derivative._errors import DerivativeError

RATIO_BOUND = 8.0
"""Linear reads give about 4x for 4x the input; a quadratic step gives about 16x."""


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _ratio(make: Callable[[int], str], n: int) -> float:
    """CPU time to read ``make(4 * n)`` over ``make(n)``: best of three, alternately."""
    small, large = make(n), make(4 * n)
    api.parse_text(small, "warm.req")  # the grammar is compiled on first use
    best_small = best_large = float("inf")
    for _ in range(3):
        best_small = min(best_small, _cpu(lambda: api.parse_text(small, "scale.req")))
        best_large = min(best_large, _cpu(lambda: api.parse_text(large, "scale.req")))
    return best_large / max(best_small, 1e-6)


def enum_spec(n: int) -> str:
    members = ", ".join(f"m{i}" for i in range(n))
    return (
        f"spec sheet version 1\n\nenum Item {{ {members} }}\nparam p: Item\n"
        "requirement R: p != Item.m1\n"
    )


def const_spec(n: int) -> str:
    consts = "".join(f"const C{i}: int = {i}\n" for i in range(n))
    return f"spec sheet version 1\n\n{consts}param p: int\nrequirement R: p >= C0\n"


def param_spec(n: int) -> str:
    params = "".join(f"param p{i}: int in 0..10\n" for i in range(n))
    return f"spec sheet version 1\n\n{params}requirement R: p0 >= 0\n"


def test_a_large_enum_is_read_in_linear_time() -> None:
    ratio = _ratio(enum_spec, 5_000)
    assert ratio < RATIO_BOUND, f"20,000 members took {ratio:.1f}x the time of 5,000"


def test_many_constants_are_read_in_linear_time() -> None:
    ratio = _ratio(const_spec, 1_500)
    assert ratio < RATIO_BOUND, f"6,000 constants took {ratio:.1f}x the time of 1,500"


def test_many_params_are_read_in_linear_time() -> None:
    ratio = _ratio(param_spec, 5_000)
    assert ratio < RATIO_BOUND, f"20,000 params took {ratio:.1f}x the time of 5,000"


def test_enum_members_are_all_kept_in_order() -> None:
    loaded = api.parse_text(enum_spec(1_000), "scale.req")
    (decl,) = loaded.contract.enums()
    assert decl.members == tuple(f"m{i}" for i in range(1_000))


def test_a_long_chain_of_constants_in_reverse_order_is_evaluated() -> None:
    n = 3_000
    consts = "".join(f"const C{i}: int = C{i - 1} + 1\n" for i in range(n - 1, 0, -1))
    text = (
        f"spec sheet version 1\n\n{consts}const C0: int = 0\nparam p: int\n"
        f"requirement R: p >= C{n - 1}\n"
    )
    loaded = api.parse_text(text, "chain.req")
    assert loaded.types.const_values[f"C{n - 1}"] == n - 1


def test_a_cycle_of_constants_is_still_reported() -> None:
    text = (
        "spec sheet version 1\n\nconst A: int = B + 1\nconst B: int = C + 1\n"
        "const C: int = A + 1\nparam p: int\nrequirement R: p >= A\n"
    )
    with pytest.raises(DerivativeError, match="cycle: A -> B -> C -> A"):
        api.parse_text(text, "cycle.req")
