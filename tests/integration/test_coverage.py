"""Candidate coverage as evidence (issue 13, items 3 and 4), on the process sandbox.

The worker measures which of the candidate's lines and arcs the judged inputs ran; the
host checks every answer against the source it parsed itself, reports the figures in
``run/v1`` (``strength.coverage``) and the ``evidence:`` line, lists the lines no input
reached, and ``build --require-coverage`` turns them into ``validation_failed``.  The
candidate can neither trace for itself nor see the tracer, and a forged answer taints the
session.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from derivative.cli import main
from derivative.forge.run._coverage import (
    CoverageForged,
    CoverageLedger,
    collect,
    map_candidate,
    map_source,
)
from derivative.forge.run._document import RunDocument
from derivative.forge.sandbox._sandbox import CallResult, Sandbox

SPEC = """\
spec Clip version 1
function clip(x: int) -> int
    requires: 0 <= x <= 100
    ensures: result == x
"""

# the contract's inputs never make x negative: lines 3 and 4 are code no input reaches
CANDIDATE = """\
def clip(x):
    if x < 0:
        y = -x
        return y
    return x
"""


def _files(tmp_path: Path) -> tuple[Path, Path]:
    spec = tmp_path / "clip.req"
    spec.write_text(SPEC, encoding="utf-8")
    cand = tmp_path / "clip.py"
    cand.write_text(CANDIDATE, encoding="utf-8")
    return spec, cand


def _run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["run", *argv, "--json"])
    out, _ = capsys.readouterr()
    doc = json.loads(out)
    RunDocument.model_validate(doc)
    return code, doc


def test_run_lists_the_lines_and_branches_no_input_reached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    spec, cand = _files(tmp_path)
    code, doc = _run_json(capsys, str(spec), "--candidate", str(cand), "--sandbox", "process")
    assert code == 0 and doc["status"] == "passed"
    cov = doc["strength"]["coverage"]
    assert (cov["lines"], cov["lines_run"]) == (5, 3)
    assert cov["never_run"] == ["clip.py:3", "clip.py:4"]
    assert (cov["branches"], cov["branches_run"]) == (2, 1)
    assert cov["branches_missed"] == ["clip.py:2 (taken)"]
    assert cov["lower_bound"] is False
    budget = doc["strength"]["budget"]
    assert budget["rounds"] >= 2 and budget["stopped"] == {}
    assert doc["stats"]["clip"]["coverage_stop"] == "plateau"
    main(["run", str(spec), "--candidate", str(cand), "--sandbox", "process"])
    text, _ = capsys.readouterr()
    assert "candidate coverage 3 of 5 lines, 1 of 2 branches" in text
    assert "never run by any input: clip.py:3, clip.py:4" in text


def test_no_coverage_measures_nothing_and_generates_one_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    spec, cand = _files(tmp_path)
    _, doc = _run_json(capsys, str(spec), "--candidate", str(cand), "--sandbox", "process",
                       "--no-coverage")
    assert doc["strength"]["coverage"] is None and doc["strength"]["budget"] is None
    assert "rounds" not in doc["stats"]["clip"]


def test_build_reports_unreached_code_and_require_coverage_fails_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    spec, cand = _files(tmp_path)
    base = [str(spec), "--candidate", str(cand), "--sandbox", "process", "--json",
            "--state", str(tmp_path / "state")]
    code = main(["build", *base, "--out", str(tmp_path / "b1")])
    out, _ = capsys.readouterr()
    outcome = json.loads(out)
    assert code == 0 and outcome["status"] == "verified"
    gate = next(g for g in outcome["gates"] if g["gate"] == "coverage")
    assert gate["status"] == "reported" and "clip.py:3, clip.py:4" in gate["detail"]
    code = main(["build", *base, "--out", str(tmp_path / "b2"), "--require-coverage"])
    out, _ = capsys.readouterr()
    outcome = json.loads(out)
    assert outcome["status"] == "validation_failed" and code != 0
    assert "clip.py:3, clip.py:4" in outcome["reason"]
    gate = next(g for g in outcome["gates"] if g["gate"] == "coverage")
    assert gate["status"] == "failed"


# --------------------------------------------------------------------------- the tracer


PROBES = """\
import sys

def peek():
    return repr(sys.gettrace())

def untrace():
    sys.settrace(None)
    return 1

def profile():
    sys.setprofile(None)
    return 1

def fine(x):
    if x:
        return 1
    return 2
"""


def _sandbox(sandbox_factory: Callable[..., Sandbox], process_launcher: Any) -> Sandbox:
    return sandbox_factory(PROBES, process_launcher, guard=True, coverage=True)


def test_the_candidate_cannot_see_the_tracer(
    sandbox_factory: Callable[..., Sandbox], process_launcher: Any,
) -> None:
    sb = _sandbox(sandbox_factory, process_launcher)
    assert sb.call("peek").value == "None"
    assert sb.call("fine", [1]).value == 1
    folder = sb.staged.candidate_dir
    ledger = CoverageLedger(map_candidate(folder, sb.staged.files))
    assert collect(sb, ledger) > 0
    assert {4, 15, 16} <= ledger.lines["cand.py"]
    assert 17 not in ledger.lines["cand.py"]


@pytest.mark.parametrize("probe", ["untrace", "profile"])
def test_the_candidate_cannot_remove_the_tracer(
    sandbox_factory: Callable[..., Sandbox], process_launcher: Any, probe: str,
) -> None:
    sb = _sandbox(sandbox_factory, process_launcher)
    result = sb.call(probe)
    assert result.status == "guard_refused", result
    assert "sys.set" in result.detail


def test_coverage_needs_asking_for_at_load(
    sandbox_factory: Callable[..., Sandbox], process_launcher: Any,
) -> None:
    sb = sandbox_factory(PROBES, process_launcher, guard=True)
    assert sb.coverage_data().status == "crashed"  # not measured: nothing to ask
    assert sb.call("fine", [0]).value == 2


# --------------------------------------------------------------------------- forged answers


def _ledger() -> CoverageLedger:
    source = map_source(CANDIDATE)
    assert source is not None
    return CoverageLedger({"clip.py": source})


@pytest.mark.parametrize("raw", [
    None,
    {"files": {}},
    {"files": {}, "more": 1},
    {"files": {"other.py": {"lines": [1], "arcs": []}}, "more": False},
    {"files": {"clip.py": {"lines": [0], "arcs": []}}, "more": False},
    {"files": {"clip.py": {"lines": [99], "arcs": []}}, "more": False},
    {"files": {"clip.py": {"lines": [True], "arcs": []}}, "more": False},
    {"files": {"clip.py": {"lines": [], "arcs": [[1, 2, 3]]}}, "more": False},
    {"files": {"clip.py": {"lines": [], "arcs": [[-99, 2]]}}, "more": False},
    {"files": {"clip.py": {"lines": list(range(1, 6)) * 9000, "arcs": []}}, "more": False},
    {"files": {"clip.py": {"lines": [1], "arcs": [], "extra": 1}}, "more": False},
])
def test_forged_answers_are_refused(raw: object) -> None:
    with pytest.raises(CoverageForged):
        _ledger().absorb(raw)


def test_a_line_outside_the_code_is_refused() -> None:
    source = map_source("x = 1\n\n\n# a comment\ny = 2\n")
    assert source is not None
    ledger = CoverageLedger({"m.py": source})
    with pytest.raises(CoverageForged):
        ledger.absorb({"files": {"m.py": {"lines": [4], "arcs": []}}, "more": False})
    assert ledger.absorb({"files": {"m.py": {"lines": [1, 5], "arcs": [[-1, 1]]}},
                          "more": False}) == (3, False)


class _Hostile:
    """A sandbox whose worker answers coverage with lines that are not there."""

    def __init__(self) -> None:
        self.rejected: list[str] = []

    def coverage_data(self) -> CallResult:
        return CallResult("returned", value={"files": {"clip.py": {"lines": [40],
                                                                  "arcs": []}}, "more": False})

    def reject(self, reason: str) -> CallResult:
        self.rejected.append(reason)
        return CallResult("protocol_error", detail=reason)


def test_a_forged_answer_taints_the_session_and_withholds_the_figures() -> None:
    ledger, hostile = _ledger(), _Hostile()
    assert collect(hostile, ledger) == 0
    assert hostile.rejected and "clip.py:40" in hostile.rejected[0]
    assert ledger.figures() is None


def test_a_run_with_a_forged_coverage_answer_is_a_policy_violation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The host-side view of a hostile worker: the answer names code that is not there."""
    spec, cand = _files(tmp_path)
    real = Sandbox.coverage_data

    def forged(self: Sandbox) -> CallResult:
        result = real(self)
        if result.status == "returned":
            return CallResult("returned", value={"files": {"clip.py": {
                "lines": [1, 2, 3, 4, 5, 77], "arcs": []}}, "more": False})
        return result

    monkeypatch.setattr(Sandbox, "coverage_data", forged)
    code, doc = _run_json(capsys, str(spec), "--candidate", str(cand), "--sandbox", "process")
    assert doc["status"] == "sandbox_policy_violation" and code == 5
    assert "coverage answer was forged" in doc["reason"]
    assert doc["strength"]["coverage"] is None


def test_the_source_map_counts_statements_not_docstrings_or_declarations() -> None:
    source = map_source(textwrap.dedent('''\
        """module doc"""
        def f(xs):
            """doc"""
            global G
            for x in xs:
                pass
            while True:
                break
            if xs: return 1
            return 2
        '''))
    assert source is not None
    assert sorted(source.statements) == [2, 5, 6, 7, 8, 9, 10]
    assert [(b.line, b.taken) for b in source.branches] == [(5, 6)]
