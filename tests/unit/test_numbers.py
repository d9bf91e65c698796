"""One text for numbers in every JSON document (``derivative._numbers``), and its readers.

The rule: an ``int`` is a JSON integer; a real is a string, the shortest exact decimal
of a rational where one exists, else ``"p/q"``; a float the shortest decimal that
reads back as the same float.  Every writer of a document (the check report, the run
evidence, the certificate by type, the Farkas rows) must give the same text.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derivative._numbers import (
    float_text,
    number_json,
    number_source,
    parse_real,
    real_json,
    real_text,
)
from derivative._types import TInt, TList, TReal
from derivative._values import value_json
from derivative.certificates._jsonvalue import decode, encode, parse_fraction
from derivative.forge.testing._evidence import json_value

CASES = [
    (3, 3),
    (-12, -12),
    (Fraction(3), "3"),
    (Fraction(-3), "-3"),
    (Fraction(1, 4), "0.25"),
    (Fraction(-5, 4), "-1.25"),
    (Fraction(1, 1000), "0.001"),
    (Fraction(1, 3), "1/3"),
    (Fraction(-2, 7), "-2/7"),
    (3.0, "3"),
    (0.5, "0.5"),
    (0.1, "0.1"),
    (-0.0, "0"),
    (1e-05, "0.00001"),
    (1.5e16, "15000000000000000"),
    (math.inf, "inf"),
    (-math.inf, "-inf"),
    (math.nan, "nan"),
]


@pytest.mark.parametrize(("value", "text"), CASES)
def test_number_json(value: int | Fraction | float, text: int | str) -> None:
    assert number_json(value) == text


@pytest.mark.parametrize(("value", "text"), CASES)
def test_every_document_writer_gives_the_same_text(
    value: int | Fraction | float, text: int | str
) -> None:
    assert value_json(value) == text  # derivative.check/v1 (and the solver's witnesses)
    assert json_value(value) == text  # derivative.run/v1 evidence
    assert value_json((value,)) == [text]
    if not isinstance(value, int) and math.isfinite(value):
        assert encode(value, TReal()) == text  # certificates, by type
        assert encode((value,), TList(TReal())) == [text]


def test_a_real_written_as_an_int_is_a_string_by_type() -> None:
    assert encode(3, TReal()) == "3"
    assert encode(3, TInt()) == 3
    assert real_json(3) == "3"


def test_big_numbers_do_not_hit_the_digit_limit() -> None:
    n = 10**5000
    assert real_text(Fraction(n)) == "1" + "0" * 5000
    assert real_text(Fraction(1, n)) == "0." + "0" * 4999 + "1"
    assert number_source(n) == "1" + "0" * 5000


def test_number_source_is_the_language_syntax() -> None:
    assert number_source(3) == "3"
    assert number_source(Fraction(3)) == "3.0"
    assert number_source(Fraction(-3)) == "-3.0"
    assert number_source(Fraction(1, 4)) == "0.25"
    assert number_source(Fraction(1, 3)) == "1/3"
    assert number_source(2.0) == "2.0"
    assert number_source(1e-05) == "0.00001"


def test_bools_are_not_numbers() -> None:
    with pytest.raises(TypeError):
        number_json(True)
    assert value_json(True) is True


def test_parse_real_reads_every_form_and_nothing_else() -> None:
    assert parse_real("3") == 3
    assert parse_real(3) == 3
    assert parse_real("-1.25") == Fraction(-5, 4)
    assert parse_real("1/3") == Fraction(1, 3)
    assert parse_real("3/1") == 3  # certificates written before the one rule still read
    assert parse_fraction("0.5") == Fraction(1, 2)
    assert decode("0.5", TReal()) == Fraction(1, 2)
    for bad in ("1e3", "0x1", "1/0", " 1", "1.", ".5", "nan", True, 1.5, None):
        with pytest.raises(ValueError):
            parse_real(bad)


@given(st.fractions(max_denominator=10**6))
def test_rationals_round_trip(q: Fraction) -> None:
    text = real_text(q)
    assert parse_real(text) == q
    assert number_json(q) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_round_trip_and_agree_with_the_decimal_they_show(f: float) -> None:
    text = float_text(f)
    assert float(parse_real(text)) == f
    assert "e" not in text and not text.endswith(".0")
    # the text is also the exact rule's text of the decimal it shows
    assert real_text(parse_real(text)) == text
    if Fraction(f) == parse_real(text):
        assert real_text(Fraction(f)) == text
