"""The type checker on hand-built trees (what the parser never produces but a caller
may), position fall-backs, ``bind`` checks and the ``type_of`` API."""

from __future__ import annotations

import pytest

from derivative._ast import (
    BindDecl,
    BinOp,
    Call,
    Compare,
    Contract,
    Count,
    EnumDecl,
    FunctionDecl,
    IntLit,
    IntType,
    Name,
    Obligation,
    OperationDecl,
    ParamDecl,
    Parameter,
    Range,
    Result,
    StrLit,
    StrType,
    SystemDecl,
)
from derivative._errors import SpecErrors
from derivative._typecheck import assignable, check, join, value_fits
from derivative._types import (
    BOOL,
    DATE,
    INT,
    REAL,
    STR,
    TAny,
    TEnum,
    TInt,
    TList,
    TStr,
)
from derivative.grammar import parse_text


def _errors(contract: Contract) -> list[str]:
    with pytest.raises(SpecErrors) as info:
        check(contract)
    return [e.message for e in info.value.errors]


def _req(expr: object, line: int = 7, column: int = 3) -> Obligation:
    return Obligation(
        id="R", kind="requirement", expr=expr, file="hand.req", line=line, column=column
    )


N_PARAM = ParamDecl(name="n", type=IntType(), file="hand.req", line=2, column=7)


def test_range_outside_in_on_a_hand_built_tree() -> None:
    expr = Compare(
        ops=("==",), operands=(Name(id="n"), Range(lo=IntLit(value=1), hi=IntLit(value=2)))
    )
    contract = Contract(name="t", version=1, declarations=(N_PARAM,), obligations=(_req(expr),))
    assert _errors(contract) == ["a range LO..HI may only follow `in` or `not in`"]


def test_bare_range_as_a_condition() -> None:
    contract = Contract(
        name="t",
        version=1,
        obligations=(_req(Range(lo=IntLit(value=1), hi=IntLit(value=2))),),
    )
    messages = _errors(contract)
    assert "a range LO..HI may only follow `in` or `not in`" in messages


def test_positions_fall_back_to_the_obligation() -> None:
    expr = Compare(ops=(">",), operands=(Name(id="nn"), IntLit(value=1)))
    contract = Contract(name="t", version=1, declarations=(N_PARAM,), obligations=(_req(expr),))
    with pytest.raises(SpecErrors) as info:
        check(contract)
    (e,) = info.value.errors
    assert (e.file, e.line, e.column) == ("hand.req", 7, 3)
    assert e.message == "unknown name 'nn'"
    assert e.hint == "did you mean 'n'?"


def test_duplicate_enum_members_and_parameters_and_declarations() -> None:
    contract = Contract(
        name="t",
        version=1,
        declarations=(
            EnumDecl(name="Color", members=("red", "red")),
            FunctionDecl(
                name="f",
                params=(Parameter(name="a", type=IntType()), Parameter(name="a", type=IntType())),
                returns=IntType(),
            ),
            ParamDecl(name="f", type=IntType()),
        ),
    )
    assert sorted(_errors(contract)) == [
        "'f' is declared twice",
        "enum Color lists member 'red' twice",
        "parameter 'a' of f is declared twice",
    ]


def test_obligation_of_an_unknown_owner() -> None:
    ob = Obligation(id="X", kind="ensures", owner="nope", expr=Result())
    inv = Obligation(id="Y", kind="invariant", owner="Nope", expr=IntLit(value=1))
    contract = Contract(name="t", version=1, obligations=(ob, inv))
    assert sorted(_errors(contract)) == [
        "ensures clause of unknown function or operation 'nope'",
        "invariant of unknown system 'Nope'",
    ]


def test_example_that_is_not_a_call() -> None:
    f = FunctionDecl(name="f", params=(), returns=IntType())
    ob = Obligation(
        id="E",
        kind="example",
        owner="f",
        expr=Compare(ops=("<",), operands=(IntLit(value=1), IntLit(value=2))),
    )
    contract = Contract(name="t", version=1, declarations=(f,), obligations=(ob,))
    assert _errors(contract) == ["an example is `CALL == VALUE` or `CALL raises ExceptionName`"]


def test_bind_checks() -> None:
    text = (
        "spec t version 1\n"
        "function f(x: int) -> int\n"
        'bind f to "pkg.mod:f"\n'
        'bind g to "pkg.mod:g"\n'
    )
    with pytest.raises(SpecErrors) as info:
        check(parse_text(text, "<bind>"))
    got = [(e.line, e.message) for e in info.value.errors]
    assert got == [
        (4, "`bind g`: no function, system, enum or exception 'g'"),
    ]
    contract = Contract(
        name="t",
        version=1,
        declarations=(
            FunctionDecl(name="f", params=(), returns=IntType()),
            BindDecl(name="f", target="pkg.mod"),
        ),
    )
    assert _errors(contract) == ["`bind f to 'pkg.mod'`: the target is \"module:attribute\""]


def test_hand_built_regex_type_without_position() -> None:
    contract = Contract(
        name="t",
        version=1,
        declarations=(
            ParamDecl(name="s", type=StrType(pattern="a$"), file="hand.req", line=4, column=7),
        ),
    )
    with pytest.raises(SpecErrors) as info:
        check(contract)
    (e,) = info.value.errors
    assert (e.line, e.column) == (4, 7)
    assert "anchors ($)" in e.message


def test_type_of_api() -> None:
    info = check(Contract(name="t", version=1))
    scope = {"n": TInt(0, 5), "s": STR}
    assert info.type_of(BinOp(op="/", operands=(Name(id="n"), IntLit(value=2))), scope) == REAL
    assert info.type_of(Call(func="len", args=(Name(id="s"),)), scope) == INT
    assert info.type_of(Result(), scope, result=DATE) == DATE
    with pytest.raises(SpecErrors) as exc:
        info.type_of(Result(), scope)
    assert "`result` is not available here" in exc.value.errors[0].message
    with pytest.raises(SpecErrors):
        info.type_of(BinOp(op="+", operands=(Name(id="n"), Name(id="s"))), scope)


def test_type_of_count_with_a_system() -> None:
    op = OperationDecl(
        system="S", name="reset", params=(Parameter(name="t", type=StrType()),), returns=IntType()
    )
    contract = Contract(name="t", version=1, declarations=(SystemDecl(name="S", operations=(op,)),))
    info = check(contract)
    cnt = Count(
        op="reset", where=Compare(ops=(">",), operands=(Result(), IntLit(value=0))), per="t"
    )
    expr = Compare(ops=("<=",), operands=(cnt, IntLit(value=1)))
    assert info.type_of(expr, {}, system="S") == BOOL
    with pytest.raises(SpecErrors):
        info.type_of(expr, {})  # no system: count is not allowed


def test_type_of_example_calls() -> None:
    f = FunctionDecl(
        name="f", params=(Parameter(name="a", type=IntType()),), returns=StrType(pattern="[a-z]+")
    )
    info = check(Contract(name="t", version=1, declarations=(f,)))
    call = Call(func="f", args=(IntLit(value=1),))
    assert info.type_of(call, {}) == TStr("[a-z]+")
    assert info.type_of(Compare(ops=("==",), operands=(call, StrLit(value="x"))), {}) == BOOL


def test_join_and_assignable() -> None:
    color = TEnum("Color", ("red",))
    assert join(INT, REAL) == REAL
    assert join(TInt(0, 1), TInt(0, 1)) == TInt(0, 1)
    assert join(TInt(0, 1), TInt(0, 2)) == INT
    assert join(TStr("a"), STR) == STR
    assert join(TList(TAny()), TList(INT)) == TList(INT)
    assert join(TList(INT), TList(REAL)) == TList(REAL)
    assert join(INT, BOOL) is None
    assert join(color, TEnum("Other", ("red",))) is None
    assert assignable(REAL, INT)
    assert not assignable(INT, REAL)
    assert assignable(TList(REAL), TList(INT))
    assert assignable(TInt(0, 3), INT)
    assert not assignable(INT, BOOL)


def test_value_fits() -> None:
    assert value_fits(3, TInt(0, 3))
    assert not value_fits(4, TInt(0, 3))
    assert not value_fits(True, INT)
    assert value_fits("ab", TStr("[a-z]+"))
    assert not value_fits("a1", TStr("[a-z]+"))
    assert value_fits((1, 2), TList(TInt(0, 2)))
    assert not value_fits((1, 3), TList(TInt(0, 2)))


def test_bind_decl_to_a_system_is_fine() -> None:
    contract = Contract(
        name="t",
        version=1,
        declarations=(
            SystemDecl(name="S", operations=()),
            BindDecl(name="S", target="pkg:S"),
        ),
    )
    check(contract)
