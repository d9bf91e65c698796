"""The hostile corpus (tests/hostile/) against the static posture validator.

The files are only *read* here, never imported or run: the runtime half of the suite
runs them inside a sandbox.  What this checks:

- the manifest lists exactly the files of the corpus, each defining ``f(x: int) -> int``;
- every file whose act is statically visible is refused by the default policy, with
  the strategies and lines the manifest names;
- every file the manifest says is not statically visible is accepted with no finding
  (so the manifest's list of what only the OS boundary can stop stays honest);
- the permissive policy accepts every file and reports the same findings.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from derivative.forge.posture._validate import validate_path

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
MANIFEST: dict[str, Any] = json.loads((HOSTILE / "manifest.json").read_text(encoding="utf-8"))
ENTRIES: list[dict[str, Any]] = MANIFEST["candidates"]
IDS = [e["file"] for e in ENTRIES]


def test_the_manifest_lists_exactly_the_corpus() -> None:
    on_disk = sorted(p.name for p in HOSTILE.glob("*.py"))
    assert sorted(IDS) == on_disk
    assert len(set(IDS)) == len(IDS)
    assert len(IDS) >= 30


def test_the_manifest_says_which_acts_only_the_boundary_can_stop() -> None:
    hidden = sorted(e["file"] for e in ENTRIES if not e["statically_visible"])
    assert MANIFEST["not_statically_visible"] == hidden
    assert "cpu_spin.py" in hidden and "memory_bomb.py" in hidden
    assert all(e["boundary"] for e in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_each_candidate_defines_f(entry: dict[str, Any]) -> None:
    tree = ast.parse((HOSTILE / entry["file"]).read_bytes())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "f" in functions, entry["file"]
    args = functions["f"].args.args
    assert [a.arg for a in args] == ["x"]
    assert ast.unparse(args[0].annotation) == "int"  # type: ignore[arg-type]
    assert ast.unparse(functions["f"].returns) == "int"  # type: ignore[arg-type]


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_default_policy_says_what_the_manifest_says(entry: dict[str, Any]) -> None:
    verdict = validate_path(HOSTILE / entry["file"], "default")
    expected = entry["default_policy"]
    found = {(f.strategy, f.line) for f in verdict.findings}
    shown = [f.render() for f in verdict.findings]
    assert verdict.accepted == expected["accepted"], shown
    if entry["statically_visible"]:
        assert expected["findings"], "a refused file names at least one finding"
        for item in expected["findings"]:
            assert (item["strategy"], item["line"]) in found, (item, shown)
    else:
        assert verdict.findings == (), shown


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_permissive_accepts_and_reports_the_same(entry: dict[str, Any]) -> None:
    strict = validate_path(HOSTILE / entry["file"], "default")
    lenient = validate_path(HOSTILE / entry["file"], "permissive")
    assert lenient.accepted
    assert [(f.strategy, f.line, f.column) for f in lenient.findings] == [
        (f.strategy, f.line, f.column) for f in strict.findings
    ]
