"""The certificate document: exactly the fields of docs/cli.md §2, its schema, its hash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from derivative._canon import canonical_json, sha256_hex
from derivative.certificates import Certificate
from derivative.certificates._model import (
    SCHEMA_PATH,
    CoreEntry,
    MinimalityEntry,
    ParamDeclaration,
    ProducedBy,
    SpecIdentity,
    certificate_schema,
    payload_sha256,
    render_schema,
)

FIELDS_OF_SECTION_2 = [
    "format", "status", "kind", "spec", "declarations", "core", "witness_input",
    "explanation", "smtlib", "minimality", "farkas", "proof", "checks", "produced_by",
    "created_at", "sha256",
]  # fmt: skip


def _sample() -> dict[str, Any]:
    doc = Certificate.model_construct(
        kind="inconsistent_requirements",
        spec=SpecIdentity(name="s", version=1, sha256="a" * 64),
        declarations=[ParamDeclaration(name="x", type="int")],
        core=[CoreEntry(id="R1", file="s.req", line=3, text=None, tags={}, expr="x > 1")],
        witness_input=None,
        explanation="R1 cannot hold.",
        smtlib="(check-sat)\n",
        minimality=[MinimalityEntry(without="R1", model={})],
        farkas=None,
        proof=None,
        checks=[],
        produced_by=ProducedBy(version="0.1.0"),
        created_at="2026-01-02T03:04:05Z",
        sha256="0" * 64,
    ).to_json()
    doc["sha256"] = payload_sha256(doc)
    return doc


def test_the_model_has_exactly_the_fields_of_the_design() -> None:
    assert list(Certificate.model_fields) == FIELDS_OF_SECTION_2
    assert list(CoreEntry.model_fields) == ["id", "file", "line", "text", "tags", "expr"]
    assert list(MinimalityEntry.model_fields) == ["without", "model"]


def test_the_published_schema_is_the_generated_one() -> None:
    assert SCHEMA_PATH.is_file(), (
        "run: python -c 'from derivative.certificates._model import write_schema; write_schema()'"
    )
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_schema()
    schema = certificate_schema()
    assert schema["required"] == [f for f in FIELDS_OF_SECTION_2 if f not in ("format", "status")]
    assert schema["additionalProperties"] is False


def test_the_hash_covers_every_other_field() -> None:
    doc = _sample()
    rest = {k: v for k, v in doc.items() if k != "sha256"}
    assert doc["sha256"] == sha256_hex(canonical_json(rest))
    Certificate.model_validate(doc)
    for key in rest:
        edited = json.loads(json.dumps(doc))
        edited[key] = "changed" if edited[key] != "changed" else "other"
        assert payload_sha256(edited) != doc["sha256"], key


def test_extra_fields_and_floats_are_refused() -> None:
    doc = _sample()
    with pytest.raises(ValueError):
        Certificate.model_validate({**doc, "extra": 1})
    with pytest.raises(TypeError):
        payload_sha256({**doc, "minimality": [{"without": "R1", "model": {"x": 0.5}}]})


def test_write_is_atomic_and_round_trips(tmp_path: Path) -> None:
    cert = Certificate.model_validate(_sample())
    target = tmp_path / "certificate.json"
    target.write_text("old", encoding="utf-8")
    cert.write(target)
    assert json.loads(target.read_text(encoding="utf-8")) == cert.to_json()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["certificate.json"]  # no temp left
    assert Certificate.model_validate_json(target.read_text(encoding="utf-8")) == cert


def test_a_failed_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert = Certificate.model_validate(_sample())
    target = tmp_path / "certificate.json"
    target.write_text("old", encoding="utf-8")

    def boom(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError, match="disk full"):
        cert.write(target)
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["certificate.json"]
