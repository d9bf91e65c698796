"""The two ways a node is made: trusted construction and validation of outside data.

Nodes are plain immutable classes; their published form is mirrored by pydantic models
(``derivative._ast_models``).  These tests hold the two in step over every node of every
bundled and golden requirement set: what ``json_data`` writes (what identities hash) is
what the mirror accepts and writes back, and validating it rebuilds the same nodes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from derivative import _ast as A
from derivative import api
from derivative._ast_models import mirror

ROOT = Path(__file__).parents[2]
SPECS = sorted(
    [*(ROOT / "examples").rglob("*.req"), *(ROOT / "tests" / "golden").rglob("spec.req")]
)


def _nodes(value: Any) -> Iterator[A.Node]:
    if isinstance(value, A.Node):
        yield value
        for name in type(value).model_fields:
            yield from _nodes(getattr(value, name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _nodes(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _nodes(item)


def _contracts() -> Iterator[A.Contract]:
    for path in SPECS:
        try:
            yield api.load([path]).contract
        except Exception:  # a spec that is meant not to load
            continue


def test_there_are_enough_specs_to_mean_something() -> None:
    assert len(list(_contracts())) >= 40


def test_the_mirror_writes_back_what_json_data_wrote_for_every_node() -> None:
    seen: set[str] = set()
    for contract in _contracts():
        data = contract.json_data()
        assert mirror(A.Contract).model_validate(data).model_dump(mode="json") == data
        for node in _nodes(contract):
            seen.add(type(node).__name__)
            data = node.json_data()
            assert mirror(type(node)).model_validate(data).model_dump(mode="json") == data
    assert len(seen) >= 30, sorted(seen)


def test_every_node_class_has_a_mirror_with_the_same_fields() -> None:
    classes = [v for v in vars(A).values()
               if isinstance(v, type) and issubclass(v, A.Node) and v is not A.Node]
    assert len(classes) >= 40
    for cls in classes:
        model = mirror(cls)
        assert model.__name__ == cls.__name__
        assert list(model.model_fields) == list(cls.model_fields)
        for name, spec in cls.model_fields.items():
            info = model.model_fields[name]
            assert bool(info.exclude) == spec.exclude, (cls, name)
            assert info.is_required() == spec.is_required(), (cls, name)


def test_a_parsed_contract_survives_validation_unchanged() -> None:
    """What the trusted path built is what full validation of its JSON rebuilds."""
    for contract in _contracts():
        again = A.Contract.model_validate(contract.model_dump(mode="json"))
        assert again.model_dump(mode="json") == contract.model_dump(mode="json")
        assert again.json_data() == contract.json_data()


def test_trusted_construction_fills_defaults_and_declared_tuples() -> None:
    node = A.Call(func="len", args=[A.Name(id="x")])
    assert node.args == (A.Name(id="x"),) and type(node.args) is tuple
    assert node.kind == "call" and node.line == 0
    assert hash(node) == hash(A.Call(func="len", args=(A.Name(id="x"),)))
    ob = A.Obligation(id="R", kind="requirement", expr=A.BoolLit(value=True))
    other = A.Obligation(id="R2", kind="requirement", expr=A.BoolLit(value=True))
    assert ob.tags == {} and ob.tags is not other.tags  # a fresh default each time


def test_trusted_construction_refuses_what_types_cannot_say() -> None:
    with pytest.raises(TypeError, match="missing field 'value'"):
        A.IntLit()
    with pytest.raises(TypeError, match="unknown field 'nope'"):
        A.IntLit(value=1, nope=2)
    one = A.IntLit(value=1)
    with pytest.raises(ValueError, match="two operands"):
        A.BinOp(op="-", operands=(one, one, one))
    with pytest.raises(ValueError, match="two operands"):
        A.BoolOp(op="and", operands=(one,))
    with pytest.raises(AttributeError, match="immutable"):
        one.value = 2  # type: ignore[misc]


def test_outside_data_is_validated_in_full() -> None:
    with pytest.raises(ValidationError):
        A.BinOp.model_validate(
            {"kind": "binop", "op": "-", "operands": [{"kind": "int", "value": 1}] * 3}
        )
    with pytest.raises(ValidationError):
        A.IntLit.model_validate({"kind": "int", "value": "not a number"})
    with pytest.raises(ValidationError):
        A.Call.model_validate({"kind": "call", "func": "len", "args": [{"kind": "nope"}]})
    made = A.Call.model_validate(
        {"kind": "call", "func": "len", "args": [{"kind": "name", "id": "x"}]}
    )
    assert made == A.Call(func="len", args=(A.Name(id="x"),))


def test_the_contract_document_is_built_as_its_model_would_build_it() -> None:
    """``contract_json`` writes the document without the models; validating it through
    ``ContractDocument`` and dumping it again must give the same data, in the same order."""
    checked = 0
    for path in SPECS:
        try:
            loaded = api.load([path])
        except Exception:  # a spec that is meant not to load
            continue
        data = api.contract_json(loaded)
        dumped = api.contract_document(loaded).model_dump(mode="json")
        assert dumped == data
        assert json.dumps(dumped) == json.dumps(data)  # the same key order too
        checked += 1
    assert checked >= 40
