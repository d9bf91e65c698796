"""The plain certificate (``certificates/_document.py``) and its pydantic model
(``certificates/_model.py``) describe one document.

The builder writes the plain form without importing pydantic; the verifier validates
untrusted JSON with the model and reads it as the plain form.  Held here: the same
classes with the same fields in the same order and the same defaults; every certificate
of the golden catalogue reads back through the model and the plain form unchanged (the
golden test also validates each one it writes); and a ``check`` that writes a
certificate never imports pydantic.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from derivative._record import record_fields
from derivative.certificates import _document as plain
from derivative.certificates import _model as model

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "check"

CLASSES = [
    "SpecIdentity",
    "ParamDeclaration",
    "ConstDeclaration",
    "EnumDeclaration",
    "FunctionParam",
    "FunctionDeclaration",
    "CoreEntry",
    "MinimalityEntry",
    "FarkasRow",
    "FarkasEntry",
    "Proof",
    "SolverCheck",
    "ProducedBy",
    "Certificate",
]


def _settled(value: Any) -> Any:
    """A golden document with its volatile fields (versions, date, proof text, hash)
    given fixed values of the right shape."""
    if isinstance(value, dict):
        return {k: _settled(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_settled(v) for v in value]
    return "1.0" if value == "<volatile>" else value


def _golden_certificates() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for expected in sorted(GOLDEN.glob("*/expected.json")):
        report = json.loads(expected.read_text(encoding="utf-8"))
        if isinstance(report.get("certificate"), dict):
            doc = _settled(report["certificate"])
            doc["created_at"] = "2026-01-01T00:00:00Z"
            doc["sha256"] = plain.payload_sha256(doc)
            out.append((expected.parent.name, doc))
    return out


@pytest.mark.parametrize("name", CLASSES)
def test_the_same_fields_in_the_same_order(name: str) -> None:
    pyd = getattr(model, name)
    mine = getattr(plain, name)
    assert record_fields(mine) == tuple(pyd.model_fields)
    defaults = mine._record_plan.template
    for field, info in pyd.model_fields.items():
        if info.is_required():
            assert defaults[field] is not info.default, (name, field)
        else:
            assert defaults[field] == info.default, (name, field)


def test_every_model_class_has_a_plain_twin() -> None:
    from pydantic import BaseModel

    models = {
        n for n, v in vars(model).items()
        if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == model.__name__
        and not n.startswith("_")
    }
    assert models == set(CLASSES)


def test_golden_certificates_read_back_unchanged() -> None:
    certificates = _golden_certificates()
    assert len(certificates) >= 20, "the golden catalogue should hold many certificates"
    kinds = set()
    for folder, doc in certificates:
        validated = model.Certificate.model_validate(doc).model_dump(mode="json")
        assert validated == doc, folder
        read = plain.from_json(validated)
        assert read.to_json() == doc, folder
        assert plain.payload_sha256(read.to_json()) == doc["sha256"], folder
        kinds.add(doc["kind"])
    assert kinds == set(plain.KINDS)


def test_writing_a_certificate_imports_no_pydantic(tmp_path: Path) -> None:
    spec = tmp_path / "s.req"
    spec.write_text(
        "spec s version 1\nparam x: int\nrequirement R1: x > 3\nrequirement R2: x < 2\n",
        encoding="utf-8",
    )
    cert = tmp_path / "c.json"
    code = (
        "import sys\n"
        "from derivative.cli import main\n"
        f"rc = main(['check', {str(spec)!r}, '--json', '--certificate', {str(cert)!r}])\n"
        "assert rc == 3, rc\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', "
        "'pydantic_core')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
    written = json.loads(cert.read_text(encoding="utf-8"))
    assert model.Certificate.model_validate(written).model_dump(mode="json") == written
