"""The published JSON Schemas, generated from the pydantic models that produce the documents.

docs/cli.md promises that every JSON document the tool writes validates against a
schema the project publishes.  Writing schemas by hand would let them drift from the
code, so they are generated from the very models that build (and validate) the
documents and committed under ``derivative/schemas/``; a test regenerates them and
fails if a committed file is stale.

    python -m derivative._schema --write    # regenerate after changing a model
    python -m derivative._schema --check    # exit 1 if a committed schema is stale

This module sits in the top layer with ``api`` and ``cli``: it gathers models from
every layer.  A layer that publishes a document adds one row to ``SCHEMAS``.
"""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

SCHEMAS: dict[str, tuple[str, str]] = {
    # file name in schemas/ -> (module, model class)
    "derivative.contract.v1.schema.json": ("derivative.api", "ContractDocument"),
    "derivative.ast.schema.json": ("derivative._ast", "Contract"),
    "derivative.check.v1.schema.json": ("derivative.solver", "CheckDocument"),
    "derivative.certificate.v1.schema.json": ("derivative.certificates", "Certificate"),
    "derivative.posture.v1.schema.json": ("derivative.forge.posture", "PostureVerdict"),
    "derivative.posture-policy.v1.schema.json": ("derivative.forge.posture", "PolicyFile"),
    "derivative.run.v1.schema.json": ("derivative.forge.run", "RunDocument"),
    "derivative.outcome.v1.schema.json": ("derivative.forge.build", "OutcomeDocument"),
    "derivative.import.v1.schema.json": ("derivative.importers", "ImportDocument"),
}
"""Every published schema: the file it is written to and the model it is generated from."""


def model_of(name: str) -> type[BaseModel]:
    """The pydantic model behind the schema file ``name``."""
    module, attr = SCHEMAS[name]
    model = getattr(importlib.import_module(module), attr)
    from derivative._ast import Node

    if isinstance(model, type) and issubclass(model, Node):
        from derivative._ast_models import mirror

        model = mirror(model)  # a syntax-tree node: its published form's model
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"{module}.{attr} is not a pydantic model")
    return model


def generate(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the schema file ``name``, freshly generated."""
    schema = model_of(name).model_json_schema(mode="validation")
    return {"$schema": JSON_SCHEMA_DIALECT, "$id": name, **schema}


def render(schema: dict[str, Any]) -> str:
    """The exact text committed for a schema: sorted keys, two-space indent, final newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def stale(directory: Path = SCHEMA_DIR) -> list[str]:
    """Names of the schemas whose file in ``directory`` is missing or differs from the models."""
    out = []
    for name in sorted(SCHEMAS):
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != render(generate(name)):
            out.append(name)
    return out


def write(directory: Path = SCHEMA_DIR) -> list[Path]:
    """Regenerate every schema into ``directory``; return the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in sorted(SCHEMAS):
        path = directory / name
        path.write_text(render(generate(name)), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Developer entry point (not part of the ``derivative`` CLI)."""
    parser = argparse.ArgumentParser(prog="python -m derivative._schema")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="regenerate the committed schemas")
    action.add_argument("--check", action="store_true", help="exit 1 if any schema is stale")
    args = parser.parse_args(argv)
    if args.write:
        for path in write():
            print(f"wrote {path}")
        return 0
    names = stale()
    for name in names:
        print(f"stale: {name} (run python -m derivative._schema --write)")
    return 1 if names else 0


if __name__ == "__main__":
    raise SystemExit(main())
