"""``derivative._jsonout``: the same data as ``json.dumps``, laid out for reading."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derivative._jsonout import dumps

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=30,
)


@given(JSON, st.integers(min_value=0, max_value=6))
def test_the_data_is_unchanged_at_every_depth(value: Any, depth: int) -> None:
    assert json.loads(dumps(value, depth)) == value


@given(JSON)
def test_deep_enough_is_exactly_indent_2(value: Any) -> None:
    assert dumps(value, depth=100) == json.dumps(value, indent=2, ensure_ascii=False)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"a": {"b": [1, 2]}}, '{\n  "a": {\n    "b": [1, 2]\n  }\n}'),
        ([{"x": {"y": 1}}], '[\n  {\n    "x": {"y": 1}\n  }\n]'),
        ({}, "{}"),
        ({"é": "ü"}, '{\n  "é": "ü"\n}'),
    ],
)
def test_below_the_depth_a_value_is_one_line(value: Any, text: str) -> None:
    assert dumps(value, depth=2) == text
