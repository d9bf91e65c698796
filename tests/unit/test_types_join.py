"""The one join of two types (``derivative._types.join``) and the readings that use it."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derivative import _types
from derivative._types import (
    BOOL,
    DATE,
    INT,
    NONE,
    REAL,
    STR,
    TAny,
    TEnum,
    TInt,
    TList,
    TStr,
    Ty,
    base,
    comparable,
    join,
    join_base,
)

COLOR = TEnum("Color", ("red", "green"))
SIZE = TEnum("Size", ("s", "m"))

leaves = st.sampled_from(
    [INT, TInt(0, 9), TInt(1, None), REAL, STR, TStr("[a-z]+"), BOOL, DATE, NONE, COLOR, SIZE,
     TAny()]
)  # fmt: skip
types: st.SearchStrategy[Ty] = st.recursive(leaves, lambda inner: inner.map(TList), max_leaves=3)


def test_the_rules() -> None:
    assert join(INT, REAL) == REAL
    assert join(TInt(0, 9), TInt(0, 9)) == TInt(0, 9)
    assert join(TInt(0, 9), TInt(1, 5)) == INT
    assert join(TStr("a"), STR) == STR
    assert join(TList(TAny()), TList(INT)) == TList(INT)
    assert join(TList(INT), TList(REAL)) == TList(REAL)
    assert join(COLOR, COLOR) == COLOR
    assert join(COLOR, SIZE) is None
    assert join(BOOL, INT) is None
    assert join(DATE, INT) is None
    assert join_base(DATE, INT) == DATE  # the left operand's type where they do not meet
    assert join_base(TInt(0, 9), TAny()) == INT


@given(types, types)
def test_join_is_symmetric_and_base_commutes(a: Ty, b: Ty) -> None:
    assert join(a, b) == join(b, a)
    j = join(a, b)
    assert comparable(a, b) == (j is not None)
    if j is not None:
        assert join_base(a, b) == base(j) == join(base(a), base(b))
        assert join(j, a) == j and join(j, b) == j  # an upper bound of both


@given(types)
def test_join_is_idempotent(a: Ty) -> None:
    assert join(a, a) == a


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("derivative.solver._encode", "join"),
        ("derivative.certificates._smt_typing", "join"),
        ("derivative.forge.codegen._python", "_join"),
        ("derivative._typecheck_expr", "join_base"),
    ],
)
def test_every_reading_uses_the_one_join(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is _types.join_base, module


def test_the_type_checker_uses_the_one_join() -> None:
    from derivative import _typecheck, _typecheck_calls, _typecheck_expr

    assert _typecheck.join is _types.join
    assert _typecheck_expr.join is _types.join
    assert _typecheck_calls.join is _types.join
