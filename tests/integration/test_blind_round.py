"""The blind-round instrument: freezing, tamper refusal, blind vs replay, and the figures.

A round of four small cases is written in a temporary folder (the runner's ``ROUNDS`` is
pointed at it): a correct candidate, a wrong one the contract catches, a contradictory
contract, and a wrong candidate the contract is too weak to catch — the false ``verified``
the instrument exists to find, which must show up in the false-verified rate and make the
run exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.blind import __main__ as blind
from benchmarks.blind import _round

SPEC = """\
spec tiny version 1
function double(x: int) -> int
    requires: -1000 <= x <= 1000
    ensures: result == 2 * x
"""
WEAK = """\
spec weak version 1
function double(x: int) -> int
    requires: -1000 <= x <= 1000
    ensures: result >= 2 * x
"""
INFEASIBLE = """\
spec limits version 1
param workers: int in 1..64
requirement W1: workers shall be at least 32
requirement W2: workers shall be at most 16
function double(x: int) -> int
    ensures: result == 2 * x
"""
ORACLE = """\
from tiny import double

def test_doubles():
    for x in range(-1000, 1001):
        assert double(x) == 2 * x
"""
GOOD = "def double(x: int) -> int:\n    return 2 * x\n"
BAD = "def double(x: int) -> int:\n    return 2 * x if x < 1000 else 1999\n"
SNEAKY = "def double(x: int) -> int:\n    return 2 * x + (1 if x == 7 else 0)\n"


def _case(root: Path, case_id: str, spec: str, code: str, expected: str,
          oracle: bool = True) -> None:
    folder = root / "cases" / case_id
    (folder / "candidate").mkdir(parents=True)
    (folder / "spec.req").write_text(spec)
    (folder / "candidate" / "tiny.py").write_text(code)
    if oracle:
        (folder / "oracle_test.py").write_text(ORACLE)
    (folder / "case.json").write_text(json.dumps({
        "id": case_id, "domain": "test", "summary": "doubling", "spec": ["spec.req"],
        "candidates": [{"path": "candidate/tiny.py", "module": "tiny", "expected": expected,
                        "why": ""}],
        "oracle": "oracle_test.py" if oracle else None}))


@pytest.fixture
def rounds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(_round, "ROUNDS", tmp_path)
    root = tmp_path / "r1"
    _case(root, "good", SPEC, GOOD, "verified")
    _case(root, "bad", SPEC, BAD, "validation_failed")
    _case(root, "limits", INFEASIBLE, GOOD, "infeasible_proven", oracle=False)
    _case(root, "weak", WEAK, SNEAKY, "validation_failed")
    return root


def test_a_round_runs_only_frozen_and_its_figures_find_the_false_verified(
        rounds: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "r1", "--workers", "2", "--sandbox", "process", "--examples", "20"]
    assert blind.main(args) == 2  # not frozen yet
    assert "is not frozen" in capsys.readouterr().err
    assert blind.main(["freeze", "r1"]) == 0
    manifest = json.loads((rounds / "manifest.json").read_text())
    assert set(manifest["files"]) >= {"cases/good/spec.req", "cases/weak/oracle_test.py"}
    assert blind.main(["freeze", "r1"]) == 2  # frozen once
    capsys.readouterr()

    assert blind.main(args) == 1  # a false verified: the weak contract let SNEAKY through
    out = capsys.readouterr().out
    results = sorted((rounds / "results").iterdir())
    assert len(results) == 1
    first = json.loads(results[0].read_text())
    f = first["figures"]
    assert f["status_accuracy"] == {"right": 3, "of": 4}
    assert f["false_verified"] == {"count": 1, "of_verified": 2, "cases": ["weak"]}
    assert f["verified_at_1"] == {"right": 1, "of": 3, "ceiling": 1}
    assert f["false_rejected"] == []
    assert {r["case"]: r["oracle"] for r in first["rows"]} == {
        "bad": "fail", "good": "pass", "limits": None, "weak": "fail"}
    assert "false-verified rate 1/2 (50.0%)  <- weak" in out

    # every later run is a replay, whatever the first one was
    (rounds / "results" / "blind.json").write_text(results[0].read_text())
    assert blind.main(args) == 1
    replays = [p for p in (rounds / "results").iterdir() if p.name.startswith("replay-")]
    assert replays and json.loads(replays[-1].read_text())["label"] == "replay"
    assert "REPLAY" in capsys.readouterr().out


@pytest.mark.parametrize("tamper", ["change", "add", "remove"])
def test_a_round_whose_files_changed_since_freezing_refuses_to_run(
        rounds: Path, capsys: pytest.CaptureFixture[str], tamper: str) -> None:
    assert blind.main(["freeze", "r1"]) == 0
    target = rounds / "cases" / "good" / "oracle_test.py"
    if tamper == "change":
        target.write_text(ORACLE + "\n# easier now\n")
    elif tamper == "add":
        (rounds / "cases" / "good" / "extra.py").write_text("x = 1\n")
    else:
        target.unlink()
    capsys.readouterr()
    assert blind.main(["check", "r1"]) == 2
    assert blind.main(["run", "r1", "--sandbox", "process"]) == 2
    err = capsys.readouterr().err
    word = {"change": "changed", "add": "added", "remove": "removed"}[tamper]
    assert f"{word}: cases/good/" in err and "not the round that was frozen" in err
    assert not (rounds / "results").exists()
