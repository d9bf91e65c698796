"""Every reading of the AST handles every node kind and every built-in function.

The readings of one expression tree are the type checker, the evaluator, the Z3
encoder, the SMT-LIB printer of certificates, the generated Python of ``derivative
tests`` and the printer back to the language.  Each is written separately (they are
checked against each other, so none may borrow another's semantics), so a new node
kind in ``derivative/_ast.py`` or a new built-in in ``derivative/_builtins.py`` must be
taught to each of them: these tests fail, naming the reading, until it is.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import pytest

from derivative._ast import Call, Compare, Contract, Expr
from derivative._builtins import BUILTIN_FUNCTIONS
from derivative._eval import _BUILTINS as EVALUATOR_BUILTINS
from derivative._eval import _Walker, evaluate
from derivative._printer import _PRINTERS, to_source
from derivative._typecheck_expr import ExprChecker
from derivative._typeinfo import TypeInfo
from derivative._types import TAny
from derivative._values import UNDEFINED
from derivative.certificates._smt_calls import _BUILTIN_CALLS
from derivative.certificates._smtlib import CoreScope, SmtEncoder
from derivative.forge.codegen._python import PyCompiler
from derivative.grammar import parse_text
from derivative.solver._encode import Encoder


def expr_kinds() -> list[str]:
    """The ``kind`` of every expression node class of ``derivative/_ast.py``."""
    union = typing.get_args(Expr)[0]
    return [cls.model_fields["kind"].default for cls in typing.get_args(union)]


def _method(prefix: str, cls: type) -> Callable[[str], bool]:
    return lambda kind: callable(getattr(cls, prefix + kind, None))


READINGS: dict[str, Callable[[str], bool]] = {
    "the type checker (derivative/_typecheck_expr.py, visit_<kind>)": _method(
        "visit_", ExprChecker
    ),
    "the evaluator (derivative/_eval.py, _Walker.visit_<kind>)": _method("visit_", _Walker),
    "the Z3 encoder (solver/_encode.py, Encoder.visit_<kind>)": _method("visit_", Encoder),
    "the SMT-LIB printer (certificates/_smtlib.py, SmtEncoder._enc_<kind>)": _method(
        "_enc_", SmtEncoder
    ),
    "the generated Python (forge/codegen/_generate.py, PyCompiler.visit_<kind>)": _method(
        "visit_", PyCompiler
    ),
    "the printer (derivative/_printer.py, _PRINTERS)": lambda kind: kind in _PRINTERS,
}

NOT_HANDLED: dict[tuple[str, str], str] = {
    ("the SMT-LIB printer (certificates/_smtlib.py, SmtEncoder._enc_<kind>)", "range"): (
        "a range is only ever the right operand of in / not in, which _enc_compare encodes"
    ),
    ("the SMT-LIB printer (certificates/_smtlib.py, SmtEncoder._enc_<kind>)", "count"): (
        "count(...) only occurs in invariants, which are never members of a certified core"
    ),
}
"""Deliberate gaps, each with its reason; anything else missing fails."""


def test_the_node_kinds_are_found() -> None:
    kinds = expr_kinds()
    assert len(kinds) == len(set(kinds)) >= 20
    assert {"int", "call", "quant", "gen", "count"} <= set(kinds)


@pytest.mark.parametrize("reading", list(READINGS))
def test_every_reading_handles_every_node_kind(reading: str) -> None:
    handles = READINGS[reading]
    missing = [k for k in expr_kinds() if not handles(k) and (reading, k) not in NOT_HANDLED]
    assert not missing, f"{reading} has no handler for node kind(s) {missing}"
    stale = [k for (r, k) in NOT_HANDLED if r == reading and handles(k)]
    assert not stale, f"{reading} now handles {stale}: remove them from NOT_HANDLED"


# --------------------------------------------------------------------------- built-ins

SAMPLES: dict[str, str] = {
    "len": 'len("ab")',
    "abs": "abs(-3)",
    "min": "min(2, 1)",
    "max": "max([1, 2])",
    "sum": "sum([1, 2])",
    "int": 'int("12")',
    "str": "str(12)",
    "matches": 'matches("ab", "a+b")',
    "startswith": 'startswith("abc", "a")',
    "endswith": 'endswith("abc", "c")',
    "contains": 'contains("abc", "b")',
    "occurrences": "occurrences([1, 2, 1], 1)",
    "sorted": "sorted([2, 1])",
    # list built-ins (issue 16 item 2)
    "product": "product([2, 3])",
    "reversed": "reversed([1, 2])",
    # text built-ins
    "lower": 'lower("AbC")',
    "upper": 'upper("AbC")',
    "strip": 'strip(" a ")',
    "split": 'split("a,b", ",")',
    "join": 'join(",", ["a", "b"])',
    "ord": 'ord("a")',
    "chr": "chr(97)",
    "get": 'get({"a": 1}, "a", 0)',
    "keys": "keys({2: 1, 1: 3})",
    "value": "value(get({1: 2}, 1))",
}
"""One well-typed call of each built-in, with literal arguments."""


def _call(text: str) -> Call:
    contract = parse_text(f"spec t version 1\nrequirement R: {text} == {text}\n", "<sample>")
    expr = contract.obligations[0].expr
    assert isinstance(expr, Compare) and isinstance(expr.operands[0], Call)
    return expr.operands[0]


def test_every_builtin_has_a_sample_call() -> None:
    assert set(SAMPLES) == set(BUILTIN_FUNCTIONS), (
        "add a sample call of each new built-in to SAMPLES (and remove old ones)"
    )


BUILTIN_TABLES: dict[str, Callable[[str], bool]] = {
    "the type checker (derivative/_typecheck_calls.py and _typecheck_compound.py, "
    "ExprChecker._builtin_<name>)": _method("_builtin_", ExprChecker),
    "the evaluator (derivative/_eval.py, _BUILTINS)": lambda name: name in EVALUATOR_BUILTINS,
    "the Z3 encoder (solver/_encode.py, Encoder._call_<name>)": _method("_call_", Encoder),
    "the SMT-LIB printer (certificates/_smtlib.py, _BUILTIN_CALLS)": lambda name: (
        name in _BUILTIN_CALLS
    ),
}


@pytest.mark.parametrize("reading", list(BUILTIN_TABLES))
def test_every_reading_lists_exactly_the_builtins(reading: str) -> None:
    handles = BUILTIN_TABLES[reading]
    missing = [name for name in BUILTIN_FUNCTIONS if not handles(name)]
    assert not missing, f"{reading} has no handler for the built-in(s) {missing}"


def test_the_evaluator_and_the_smtlib_printer_list_no_unknown_builtin() -> None:
    assert set(EVALUATOR_BUILTINS) == set(BUILTIN_FUNCTIONS), "the evaluator"
    assert set(_BUILTIN_CALLS) == set(BUILTIN_FUNCTIONS), "the SMT-LIB printer"


RUN_A_CALL: dict[str, Callable[[Call], Any]] = {
    "the type checker": lambda call: TypeInfo(Contract(name="t", version=1)).type_of(call, {}),
    "the evaluator": lambda call: evaluate(call, {}, {}),
    "the Z3 encoder": lambda call: Encoder({}).encode(call),
    "the SMT-LIB printer": lambda call: SmtEncoder(CoreScope()).term(call),
    "the generated Python": lambda call: PyCompiler({}).compile(call),
    "the printer": to_source,
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
@pytest.mark.parametrize("reading", list(RUN_A_CALL))
def test_every_reading_reads_a_call_of_every_builtin(reading: str, name: str) -> None:
    call = _call(SAMPLES[name])
    try:
        out = RUN_A_CALL[reading](call)
    except Exception as exc:  # the reading's own error names what it lacks
        pytest.fail(f"{reading} cannot read {SAMPLES[name]}: {type(exc).__name__}: {exc}")
    assert out is not None and out is not UNDEFINED, f"{reading}: {SAMPLES[name]}"
    assert not isinstance(out, TAny), f"{reading}: {SAMPLES[name]} is ill-typed"
    if reading == "the printer":
        assert out == SAMPLES[name]
