"""The published JSON Schemas are current, and what the tool prints validates against them.

Validation goes through the pydantic models the schemas are generated from
(``model_validate``), which is the same check; where the optional ``jsonschema``
package happens to be installed, the printed documents are also validated against
the committed schema files themselves, by an implementation that is not ours.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from derivative import _schema, api
from derivative._ast import Contract

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SETS = [
    ["examples/password_policy.req"],
    ["examples/discount.req"],
    ["examples/limits/feature.req"],
]


def test_committed_schemas_match_the_models() -> None:
    assert _schema.stale() == [], "run: python -m derivative._schema --write"


def test_stale_schemas_are_detected(tmp_path: Path) -> None:
    _schema.write(tmp_path)
    assert _schema.stale(tmp_path) == []
    name = sorted(_schema.SCHEMAS)[0]
    path = tmp_path / name
    path.write_text(path.read_text(encoding="utf-8").replace('"title"', '"Title"', 1), "utf-8")
    assert _schema.stale(tmp_path) == [name]
    (tmp_path / sorted(_schema.SCHEMAS)[1]).unlink()
    assert len(_schema.stale(tmp_path)) == 2


def test_schema_files_are_json_schema_documents() -> None:
    for name in _schema.SCHEMAS:
        data = json.loads((_schema.SCHEMA_DIR / name).read_text(encoding="utf-8"))
        assert data["$schema"] == _schema.JSON_SCHEMA_DIALECT
        assert data["$id"] == name
        assert data["type"] == "object" and data["additionalProperties"] is False


def _documents(repo_root: Path) -> list[dict[str, Any]]:
    return [api.contract_json(api.load([repo_root / p for p in paths])) for paths in EXAMPLE_SETS]


def _jsonschema_validate(document: dict[str, Any], schema_name: str) -> None:
    """Validate with the jsonschema package when it is installed (it is not a dependency)."""
    if importlib.util.find_spec("jsonschema") is None:
        return
    import jsonschema

    schema = json.loads((_schema.SCHEMA_DIR / schema_name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(document)


@pytest.mark.parametrize("paths", EXAMPLE_SETS, ids=lambda p: p[0])
def test_parse_json_of_each_example_validates(
    paths: list[str],
    capsys: pytest.CaptureFixture[str],
    repo_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from derivative.cli import main

    monkeypatch.chdir(repo_root)
    assert main(["parse", "--json", *paths]) == 0
    document = json.loads(capsys.readouterr().out)
    api.ContractDocument.model_validate(document)
    _jsonschema_validate(document, "derivative.contract.v1.schema.json")


def test_contract_model_round_trips_every_example(repo_root: Path) -> None:
    for paths in EXAMPLE_SETS:
        contract = api.load([repo_root / p for p in paths]).contract
        dumped = contract.model_dump(mode="json")
        assert Contract.model_validate(dumped).model_dump(mode="json") == dumped
        _jsonschema_validate(dumped, "derivative.ast.schema.json")


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda d: d.update(format="derivative.contract/v2"),
        lambda d: d["spec"].update(sha256="not-a-hash"),
        lambda d: d["spec"].update(version=0),
        lambda d: d.update(extra_field=1),
        lambda d: d["obligations"][0].pop("expr"),
        lambda d: d["obligations"][0].update(kind="wish"),
        lambda d: d["declarations"][0].update(kind="macro"),
        lambda d: d["obligations"][0]["ast"].update(kind="lambda"),
    ],
)
def test_invalid_documents_are_rejected(repo_root: Path, corrupt: Any) -> None:
    document = _documents(repo_root)[0]
    corrupt(document)
    with pytest.raises(ValidationError):
        api.ContractDocument.model_validate(document)
