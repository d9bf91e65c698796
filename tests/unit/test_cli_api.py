"""The public API behind the CLI: ``load``/``parse_text``, the contract/v1 document, and
the operations with their options (docs/api.md runs them end to end)."""

from __future__ import annotations

import dataclasses
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

import derivative
from derivative import api
from derivative._canon import contract_identity
from derivative._errors import DerivativeError, SpecError, SpecErrors, UsageError

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = ROOT / "examples" / "password_policy.req"

SMALL = """\
spec small version 2
"A small spec."
enum Color { red, green }
exception Broken(ValueError)
const LIMIT: int = 10
param n: int in 1..LIMIT
param name: str matching "[a-z]+"
requirement R1 [source: test, ticket: t-1] "positive": n shall be at least 2
requirement: n < LIMIT
function f(xs: list[int], c: Color) -> real
    requires: len(xs) >= 1
    raises Broken when len(xs) > 3
    ensures: result >= 0.5
    example: f([1], Color.red) == 0.5
    example: f([1, 2, 3, 4], Color.green) raises Broken
system Store
    operation put(key: str) -> str
    operation take(token: str from put) -> none
    invariant once: count(take where true, per token) <= 1
"""


@pytest.fixture(scope="module")
def small() -> api.LoadedContract:
    return api.parse_text(SMALL, "small.req")


@pytest.fixture(scope="module")
def small_doc(small: api.LoadedContract) -> dict[str, Any]:
    return api.contract_json(small)


# --------------------------------------------------------------------------- loading


def test_load_accepts_one_path_or_several() -> None:
    one = api.load(PASSWORD)
    assert one.name == "password_policy" and one.version == 3
    assert api.load([str(PASSWORD)]).identity == one.identity
    assert one.identity == contract_identity(one.contract)
    assert one.types.contract == one.contract


@pytest.mark.parametrize(
    ("paths", "message"),
    [([], "no spec file given"), (["nope.req"], "no such file: nope.req")],
)
def test_load_rejects_bad_paths_with_usage_errors(paths: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        api.load(paths)


def test_undecodable_file_is_a_spec_error(tmp_path: Path) -> None:
    spec = tmp_path / "latin1.req"
    spec.write_bytes(b"spec s version 1\n# caf\xe9\nparam x: int\n")
    with pytest.raises(DerivativeError) as info:
        api.load([spec])
    assert str(spec) in info.value.render()


def test_type_errors_surface_as_spec_errors() -> None:
    with pytest.raises((SpecError, SpecErrors)):
        api.parse_text('spec s version 1\nparam x: int\nrequirement: x == "a"\n')


def test_public_names_resolve_to_the_api() -> None:
    assert derivative.load is api.load
    assert derivative.parse_text is api.parse_text
    assert derivative.contract_identity is contract_identity
    assert derivative.SpecError is SpecError
    assert callable(derivative.evaluate)
    with pytest.raises(AttributeError):
        _ = derivative.no_such_name  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- the operations

OPTIONS = ("CheckOptions", "RunOptions", "TestOptions", "VerifyOptions")


def test_the_operations_are_public() -> None:
    for name in ("check", "certify", "run_candidate", "generate_tests", "run_tests",
                 "verify_certificate"):
        assert getattr(derivative, name) is getattr(api, name)


@pytest.mark.parametrize("name", OPTIONS)
def test_options_are_frozen_and_keyword_only(name: str) -> None:
    cls = getattr(derivative, name)
    params = cls.__dataclass_params__
    assert params.frozen and all(f.kw_only for f in dataclasses.fields(cls))
    required = {"RunOptions": {"candidate": "c.py"}, "TestOptions": {"target": "t.py"}}
    options = cls(**required.get(name, {}))
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.seed = 1
    if required.get(name):
        with pytest.raises(TypeError):
            cls(*required[name].values())


def test_the_testing_defaults_are_written_once() -> None:
    from derivative.forge.codegen import generate_module
    from derivative.forge.testing import EngineOptions

    examples = EngineOptions.examples
    assert derivative.RunOptions(candidate="c.py").examples == examples
    assert derivative.TestOptions(target="t.py").examples == examples
    assert inspect.signature(generate_module).parameters["examples"].default == examples


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["check", "--help"], "default {CheckOptions.rlimit}"),
        (["run", "--help"], "default {RunOptions.examples}"),
        (["run", "--help"], "default {RunOptions.sandbox}"),
        (["tests", "--help"], "default {TestOptions.examples}"),
    ],
)
def test_the_cli_shows_the_options_defaults(
    argv: list[str], shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from derivative.cli import main

    assert main(argv) == 0
    text = " ".join(capsys.readouterr().out.split())
    expected = shown.format(
        CheckOptions=derivative.CheckOptions, RunOptions=derivative.RunOptions,
        TestOptions=derivative.TestOptions,
    )
    assert expected in text


def test_check_and_certify() -> None:
    loaded = api.parse_text("spec s version 1\nparam x: int in 0..10\nrequirement A: x >= 30\n")
    result = derivative.check(loaded)
    assert result.status == "infeasible_proven" and result.certificate is None
    certified = derivative.certify(loaded, result)
    assert certified.certificate.to_json()["format"] == "derivative.certificate/v1"
    verdict = derivative.verify_certificate(certified.certificate)
    assert verdict.valid, verdict.reasons
    feasible = derivative.check(api.parse_text("spec t version 1\nparam x: int\n"))
    with pytest.raises(UsageError, match="only an infeasible_proven result"):
        derivative.certify(loaded, feasible)


def test_verify_certificate_reads_files_and_rejects_what_is_not_one(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        derivative.verify_certificate(tmp_path / "none.json")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    with pytest.raises(UsageError, match="not JSON"):
        derivative.verify_certificate(str(garbage))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something/v1"}), encoding="utf-8")
    verdict = derivative.verify_certificate(other, derivative.VerifyOptions())
    assert not verdict.valid and "not a derivative.certificate/v1" in verdict.reasons[0]


def test_examples_below_one_are_bad_input() -> None:
    loaded = api.load(PASSWORD)
    with pytest.raises(UsageError, match="examples must be at least 1"):
        derivative.generate_tests(loaded, derivative.TestOptions(target="t.py", examples=0))
    with pytest.raises(UsageError, match="examples must be at least 1"):
        derivative.run_candidate(loaded, derivative.RunOptions(candidate="c.py", examples=0))


# --------------------------------------------------------------------------- the document


def test_document_has_the_published_top_level_shape(small_doc: dict[str, Any]) -> None:
    assert list(small_doc) == ["format", "spec", "files", "declarations", "obligations"]
    assert small_doc["format"] == "derivative.contract/v1"
    assert small_doc["spec"] == {
        "name": "small",
        "version": 2,
        "sha256": contract_identity(api.parse_text(SMALL, "small.req").contract),
        "description": "A small spec.",
        "tolerance": None,
    }


def _by(items: object, key: str) -> dict[str, dict[str, Any]]:
    assert isinstance(items, list)
    return {item[key]: item for item in items}


def test_declarations_carry_written_types_as_source(small_doc: dict[str, Any]) -> None:
    decls = _by(small_doc["declarations"], "name")
    assert decls["Color"]["members"] == ["red", "green"]
    assert decls["Broken"]["base"] == "ValueError"
    assert (decls["LIMIT"]["type"], decls["LIMIT"]["value"]) == ("int", "10")
    assert decls["n"]["type"] == "int in 1..LIMIT"
    assert decls["name"]["type"] == 'str matching "[a-z]+"'
    f = decls["f"]
    assert f["params"] == [
        {"name": "xs", "type": "list[int]", "from_op": None},
        {"name": "c", "type": "Color", "from_op": None},
    ]
    assert f["returns"] == "real"
    (_put, take) = decls["Store"]["operations"]
    assert take["qualname"] == "Store.take" and take["returns"] == "none"
    assert take["params"] == [{"name": "token", "type": "str", "from_op": "put"}]
    assert all(d["file"] == "small.req" and d["line"] >= 1 for d in decls.values())


def test_obligations_carry_id_kind_owner_expr_place_text_tags(
    small_doc: dict[str, Any],
) -> None:
    obs = _by(small_doc["obligations"], "id")
    r1 = obs["R1"]
    assert {k: r1[k] for k in ("kind", "owner", "expr", "file", "line", "text", "tags")} == {
        "kind": "requirement",
        "owner": None,
        "expr": "n >= 2",
        "file": "small.req",
        "line": 8,
        "text": "positive",
        "tags": {"source": "test", "ticket": "t-1"},
    }
    assert r1["generated_id"] is False and r1["column"] >= 1
    raises = obs["f.raises.Broken"]
    assert (raises["kind"], raises["exception"], raises["expr"]) == (
        "raises",
        "Broken",
        "len(xs) > 3",
    )
    assert raises["generated_id"] is True
    examples = [o for o in obs.values() if o["kind"] == "example"]
    assert {o["exception"] for o in examples} == {None, "Broken"}
    inv = obs["once"]
    assert (inv["kind"], inv["owner"]) == ("invariant", "Store")
    assert inv["expr"] == "count(take where true, per token) <= 1"


def test_document_round_trips_through_its_model(small: api.LoadedContract) -> None:
    model = api.contract_document(small)
    dumped = model.model_dump(mode="json")
    # Source positions inside `ast` are not serialised, so compare what is published.
    assert api.ContractDocument.model_validate(dumped).model_dump(mode="json") == dumped
    for doc, ob in zip(model.obligations, small.obligations, strict=True):
        assert doc.ast.model_dump(mode="json") == ob.expr.json_data()  # positions unpublished


def _identity(text: str) -> str:
    sha: str = api.contract_json(api.parse_text(text))["spec"]["sha256"]
    return sha


def test_identity_ignores_comments_and_texts_but_not_meaning() -> None:
    base = _identity(SMALL)
    assert _identity(SMALL.replace('"positive"', '"strictly positive"') + "# a comment\n") == base
    assert _identity(SMALL.replace("at least 2", "at least 3")) != base
