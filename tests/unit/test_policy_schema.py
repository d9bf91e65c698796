"""Every shipped posture policy file passes the published policy schema, and the schema and
the loader accept the same files.

A policy file is either complete or ``extends`` another and holds only the keys it
replaces; the schema (``derivative.posture-policy.v1``, generated from ``PolicyFile``)
says so with an ``anyOf``: ``extends``, or every key a complete policy needs.  The files
are validated here by ``jsonschema``, an implementation that is not ours.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from derivative import _schema
from derivative._errors import UsageError
from derivative.forge.posture import PolicyFile
from derivative.forge.posture._policy import POLICY_DIR, load_policy

SCHEMA = "derivative.posture-policy.v1.schema.json"
SHIPPED = sorted(POLICY_DIR.glob("*.json"))


def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((_schema.SCHEMA_DIR / SCHEMA).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _errors(document: Any) -> list[str]:
    return [e.message for e in _validator().iter_errors(document)]


def test_the_policies_are_shipped() -> None:
    assert [p.name for p in SHIPPED] == ["default.json", "permissive.json"]
    assert "extends" in json.loads((POLICY_DIR / "permissive.json").read_text("utf-8"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_policy_passes_the_published_schema(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    assert _errors(document) == []
    PolicyFile.model_validate(document)
    load_policy(path.stem)


def test_the_schema_is_generated_from_the_file_model() -> None:
    assert _schema.model_of(SCHEMA) is PolicyFile
    assert _schema.stale() == []


def _complete() -> dict[str, Any]:
    document: dict[str, Any] = json.loads((POLICY_DIR / "default.json").read_text("utf-8"))
    return document


@pytest.mark.parametrize(
    ("document", "accepted"),
    [
        ({"extends": "default", "enforce": False}, True),
        ({"extends": "default", "name": "mine", "modules": {"os": {}}}, True),
        ({"extends": "default", "enforce": "sometimes"}, False),
        ({"extends": "default", "surprise": 1}, False),
        ({"extends": ""}, False),
        ({"extends": None, "enforce": False}, False),
        ({"format": "derivative.posture-policy/v1", "name": "half", "enforce": False}, False),
        ({"extends": "default", "format": "derivative.posture-policy/v2"}, False),
    ],
    ids=["partial", "replaces-a-table", "bad-type", "unknown-key", "empty-extends",
         "null-extends", "incomplete-without-extends", "wrong-format"],
)
def test_the_schema_and_the_model_accept_the_same_files(
    document: dict[str, Any], accepted: bool
) -> None:
    assert (_errors(document) == []) is accepted
    try:
        PolicyFile.model_validate(document)
        by_model = True
    except ValueError:
        by_model = False
    assert by_model is accepted


def test_a_complete_policy_passes_and_one_missing_key_fails() -> None:
    document = _complete()
    assert _errors(document) == []
    del document["syntax"]
    assert _errors(document)
    with pytest.raises(ValueError, match="needs 'syntax'"):
        PolicyFile.model_validate(document)


def test_the_loader_refuses_a_file_the_schema_refuses(tmp_path: Path) -> None:
    """An extending file is checked as a file before it is merged, against the same model."""
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"extends": None, **_complete(), "name": "mine"}), "utf-8")
    assert _errors(json.loads(path.read_text("utf-8")))
    with pytest.raises(UsageError) as info:
        load_policy(path)
    assert "not a valid posture policy file" in str(info.value)
    assert "'extends' is a policy name or a path, not null" in str(info.value)
    path.write_text(json.dumps({"extends": "default", "name": "mine", "enforce": False}),
                    "utf-8")
    policy = load_policy(path)
    assert (policy.name, policy.enforce) == ("mine", False)
