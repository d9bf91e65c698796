"""Golden parses of the language's specs and golden syntax-error messages.

- Every ``*.req`` in this folder is loaded (its ``use``d files with it) and the
  result compared with ``*.expected.json``: the contract's ``model_dump`` plus the
  obligation identifiers and every position (file, line, column of declarations,
  obligations, types and expression nodes).
- Every ``errors/*.req`` must fail, and its rendered error (file:line:col,
  message, source line, caret, notes, hint) is compared with ``*.expected.txt``.

Regenerate after an intended change with ``DERIVATIVE_REGEN_GOLDEN=1 python -m
pytest tests/golden/language`` (the ``golden`` fixture of ``tests/conftest.py``); never
edit the expected files by hand.  A regenerating run still checks what the snapshots
do not hold: the contract survives a round trip through its model, and every error
points at its own file with a line and a column.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from derivative._ast import Contract, Node
from derivative._errors import DerivativeError, SpecError, SpecErrors
from derivative.api import parse_text
from derivative.grammar import load

if TYPE_CHECKING:
    from conftest import Golden

HERE = Path(__file__).resolve().parent
SPECS = sorted(p.name for p in HERE.glob("*.req"))
ERRORS = sorted(p.name for p in (HERE / "errors").glob("*.req"))


def dump(value: Any) -> Any:
    """Like ``model_dump`` but keeping the position fields a dump leaves out."""
    if isinstance(value, Node):
        return {name: dump(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, (tuple, list)):
        return [dump(v) for v in value]
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("name", SPECS)
def test_spec_parses_as_recorded(
    name: str, monkeypatch: pytest.MonkeyPatch, golden: Golden
) -> None:
    monkeypatch.chdir(HERE)
    contract = load([name])
    dumped = contract.model_dump(mode="json")
    assert Contract.model_validate(dumped).model_dump(mode="json") == dumped
    assert contract.obligations, f"{name} declares no obligation"
    actual = json.dumps(
        {"model_dump": dumped, "with_positions": dump(contract)},
        indent=1,
        sort_keys=True,
        ensure_ascii=False,
    )
    golden.check(HERE / name.replace(".req", ".expected.json"), actual + "\n")


@pytest.mark.parametrize("name", ERRORS)
def test_error_renders_as_recorded(
    name: str, monkeypatch: pytest.MonkeyPatch, golden: Golden
) -> None:
    monkeypatch.chdir(HERE / "errors")
    with pytest.raises(DerivativeError) as info:
        load([name])
    err = info.value
    assert isinstance(err, (SpecError, SpecErrors)), type(err)
    first = err if isinstance(err, SpecError) else err.errors[0]
    # every golden error points at a place: a file of this folder, a line and a column
    assert first.pos is not None and first.pos.line >= 1 and first.pos.column >= 1
    assert (HERE / "errors" / first.pos.file).is_file(), first.pos.file
    golden.check(HERE / "errors" / name.replace(".req", ".expected.txt"), err.render() + "\n")


def _language_md() -> Path:
    """The project's own language reference (never a design file outside the repository)."""
    return HERE.parents[2] / "docs" / "language.md"


def test_every_complete_spec_of_the_reference_parses() -> None:
    """Each fenced block of docs/language.md that is a whole spec parses and type-checks,
    so the reference never shows a spec the tool refuses (a block with ``use`` needs the
    file it names, so it is checked up to that: the refusal must be about ``use``)."""
    text = _language_md().read_text(encoding="utf-8")
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S)
    specs = [b for b in blocks if re.match(r"spec \w+ version \d+", b)]
    assert len(specs) >= 10, "docs/language.md has complete specs"
    for block in specs:
        try:
            parse_text(block)
        except DerivativeError as err:
            assert "use" in block and "`use`" in str(err), (block.splitlines()[0], str(err))


def test_golden_folder_is_complete() -> None:
    assert {"password_policy.req", "constructs.req"} <= set(SPECS)
    assert len(ERRORS) >= 10
