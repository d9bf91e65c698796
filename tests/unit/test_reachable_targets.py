"""Every target the tool insists on is one it can reach (issue 13, item 5).

``requires: len(arr) <= 1000`` made ``len(arr) == 1000`` a boundary no solver built in its
limit and random search never drew, so every candidate, the correct one included, was
``failed`` as unexercised. Such sizes are now built directly (``solver/_construct.py``)
from a valid input, checked by the evaluator; a target that still cannot be built is the
tool's limit: the obligation is ``undecided`` and the run ``unknown`` (exit 6), never the
candidate's failure.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from derivative import api
from derivative.api import TestOptions
from derivative.cli import main
from derivative.forge.build import Ledger
from derivative.forge.testing import RunEvidence

SIZES = """\
spec sizes version 1
function total(arr: list[int], tag: str) -> int
    requires R1: len(arr) <= {n}
    requires R3: forall i in 0..len(arr) - 1: -1000 <= arr[i] <= 100000
    requires R4: len(tag) <= 255 and matches(tag, "[a-z]*")
    ensures E1: result == sum(arr) + len(tag)
"""

CORRECT = "def total(arr, tag):\n    return sum(arr) + len(tag)\n"
WRONG_AT_THE_EDGE = """\
def total(arr, tag):
    if len(arr) >= 1000 or len(tag) == 255:
        return 0
    return sum(arr) + len(tag)
"""


def _run(tmp_path: Path, spec: str, code: str, module: str) -> RunEvidence:
    (tmp_path / "spec.req").write_text(spec, encoding="utf-8")
    (tmp_path / f"{module}.py").write_text(code, encoding="utf-8")
    sys.modules.pop(module, None)
    loaded = api.load(str(tmp_path / "spec.req"))
    return api.run_tests(loaded, TestOptions(target=str(tmp_path / f"{module}.py"), examples=10))


def test_a_size_bound_no_solver_reaches_is_built_and_the_correct_candidate_passes(
        tmp_path: Path) -> None:
    ev = _run(tmp_path, SIZES.format(n=1000), CORRECT, "sizes_ok")
    assert ev.status == "passed", ev.summary()
    hits = {t.description: t for o in ev.obligations for t in o.triggers}
    assert hits["len(arr) - 1000 == 0"].hits > 0
    assert hits["len(tag) - 255 == 0"].hits > 0


def test_a_candidate_wrong_only_at_the_size_bound_fails(tmp_path: Path) -> None:
    ev = _run(tmp_path, SIZES.format(n=1000), WRONG_AT_THE_EDGE, "sizes_wrong")
    assert ev.status == "failed"
    assert ev.by_id()["E1"].status == "failed"


def test_a_target_that_cannot_be_built_is_the_tools_limit(tmp_path: Path) -> None:
    ev = _run(tmp_path, SIZES.format(n=10**7), CORRECT, "sizes_huge")
    r1 = ev.by_id()["R1"]
    assert r1.status == "undecided" and ev.status == "unknown"
    assert "the tool's limit, not the candidate's failure" in r1.explain()
    assert all(o.status in ("passed", "vacuous") for o in ev.obligations if o.id != "R1")
    # A failure elsewhere still fails: the tool's limit never hides a counterexample.
    bad = _run(tmp_path, SIZES.format(n=10**7), WRONG_AT_THE_EDGE.replace(
        "len(arr) >= 1000 or ", ""), "sizes_huge_wrong")
    assert bad.status == "failed" and bad.by_id()["E1"].status == "failed"


def test_tests_exits_6_on_a_target_it_cannot_reach(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "spec.req").write_text(SIZES.format(n=10**7), encoding="utf-8")
    (tmp_path / "sizes_cli.py").write_text(CORRECT, encoding="utf-8")
    sys.modules.pop("sizes_cli", None)
    code = main(["tests", str(tmp_path / "spec.req"), "--target",
                 str(tmp_path / "sizes_cli.py"), "--examples", "10"])
    out = capsys.readouterr().out
    assert code == 6, out
    assert "undecided" in out


def test_a_ledger_written_before_unknown_existed_takes_unknown_records(tmp_path: Path) -> None:
    Ledger(tmp_path)  # the current schema ...
    path = tmp_path / "ledger.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    old = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'records'").fetchone()[0]
    # ... rewritten as a ledger from before the status word was added
    conn.execute("DROP TRIGGER records_one_per_build")
    conn.execute("DROP TABLE records")
    conn.execute(old.replace(", 'unknown'", ""))
    conn.execute("INSERT INTO records (build_id, contract_name, contract_version, "
                 "contract_sha256, status, reason, started_at, finished_at, folder, enforced, "
                 "tool_version) VALUES ('b1', 's', 1, 'x', 'verified', 'r', 't', 't', 'f', 1, "
                 "'0')")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO records (build_id, contract_name, contract_version, "
                     "contract_sha256, status, reason, started_at, finished_at, folder, "
                     "enforced, tool_version) VALUES ('b0', 's', 1, 'x', 'unknown', 'r', 't', "
                     "'t', 'f', 1, '0')")
    conn.close()
    ledger = Ledger(tmp_path)  # opening widens the check and keeps every row
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("INSERT INTO records (build_id, contract_name, contract_version, "
                 "contract_sha256, status, reason, started_at, finished_at, folder, enforced, "
                 "tool_version) VALUES ('b2', 's', 1, 'x', 'unknown', 'r', 't', 't', 'f', 1, "
                 "'0')")
    rows = conn.execute("SELECT seq, build_id, status FROM records ORDER BY seq").fetchall()
    assert rows == [(1, "b1", "verified"), (2, "b2", "unknown")]
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM records")
    conn.close()
    assert ledger.path == path
