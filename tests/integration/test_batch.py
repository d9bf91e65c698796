"""``derivative batch`` on a real Dask ``LocalCluster`` of several worker processes.

What is checked: every task ends in its build's own status; the results table (JSON Lines
and CSV) and the ledger are written by the driver as results arrive; a worker killed in the
middle of a build loses nothing already reported, its task is tried once more, and a task
whose worker dies twice is ``interrupted`` (exit 75), recorded as such in the ledger and
never as a verdict.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from derivative.batch import BatchOptions, batch
from derivative.cli import main

SPEC = """\
spec tiny version 1
function double(x: int) -> int
    requires: -1000 <= x <= 1000
    ensures: result == 2 * x
    example: double(3) == 6
"""

INFEASIBLE = """\
spec limits version 1
param workers: int in 1..64
requirement W1: workers shall be at least 32
requirement W2: workers shall be at most 16
function double(x: int) -> int
    ensures: result == 2 * x
"""

GENERATOR = r'''
import os, sys, time
marker_dir, mode = sys.argv[1], sys.argv[2]
sys.stdin.read()
runs = sorted(os.listdir(marker_dir))
with open(os.path.join(marker_dir, f"run{len(runs)}.pid"), "w") as f:
    f.write(str(os.getppid()))
if mode == "always" or (mode == "first" and not runs):
    parent = os.getppid()
    while os.getppid() == parent:   # until the worker that started us is gone
        time.sleep(0.1)
    sys.exit(1)
out = os.environ["DERIVATIVE_OUTPUT_DIR"]
with open(os.path.join(out, "tiny.py"), "w") as f:
    f.write("def double(x: int) -> int:\n    return 2 * x\n")
'''


def _write(folder: Path, tasks: list[dict[str, Any]]) -> Path:
    (folder / "tiny.req").write_text(SPEC)
    (folder / "limits.req").write_text(INFEASIBLE)
    (folder / "good").mkdir()
    (folder / "good" / "tiny.py").write_text("def double(x: int) -> int:\n    return 2 * x\n")
    (folder / "bad").mkdir()
    (folder / "bad" / "tiny.py").write_text(
        "def double(x: int) -> int:\n    return 2 * x if x < 1000 else 1999\n")
    (folder / "gen.py").write_text(GENERATOR)
    header = {"format": "derivative.batch/v1",
              "defaults": {"sandbox": "process", "examples": 20}}
    manifest = folder / "batch.jsonl"
    manifest.write_text("\n".join(json.dumps(t) for t in [header, *tasks]) + "\n")
    return manifest


def _records(state: Path) -> list[sqlite3.Row]:
    conn = sqlite3.connect(state / "ledger.sqlite3")
    conn.row_factory = sqlite3.Row
    try:
        return list(conn.execute("SELECT * FROM records"))
    finally:
        conn.close()


def test_a_batch_on_three_workers_records_every_status(tmp_path: Path) -> None:
    tasks = [
        {"id": "good", "spec": "tiny.req", "candidate": "good/tiny.py"},
        {"id": "bad", "spec": "tiny.req", "candidate": "bad/tiny.py"},
        {"id": "infeasible", "spec": "limits.req", "candidate": "good/tiny.py"},
        {"id": "synth", "spec": "tiny.req", "synth": True, "examples": 10},
        {"id": "no-module", "spec": "tiny.req", "candidate": "good", "module": "nothere"},
    ]
    manifest = _write(tmp_path, tasks)
    out, state = tmp_path / "out", tmp_path / "state"
    seen: list[str] = []
    report = batch(manifest, BatchOptions(workers=3, out=str(out), state=str(state)),
                   notify=lambda row, done, total: seen.append(row["id"]))
    by_id = {r["id"]: r for r in report.rows}
    assert {k: r["status"] for k, r in by_id.items()} == {
        "good": "verified", "bad": "validation_failed", "infeasible": "infeasible_proven",
        "synth": "verified", "no-module": "bad_input"}
    assert sorted(seen) == sorted(by_id) and report.workers == 3
    assert report.exit_code == 2  # one task's input was bad
    assert all(r["tries"] == 1 for r in report.rows)
    assert len({r["worker_pid"] for r in report.rows}) >= 2  # really several processes
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == [r["id"] for r in report.rows]
    with (out / "results.csv").open() as f:
        table = list(csv.DictReader(f))
    assert {r["id"]: r["status"] for r in table} == {k: r["status"] for k, r in by_id.items()}
    assert by_id["good"]["package"] and Path(by_id["good"]["package"]).is_file()
    assert (Path(by_id["bad"]["folder"]) / "outcome.json").is_file()
    assert by_id["no-module"]["folder"] is None  # refused before writing: no folder
    records = {r["build_id"]: r for r in _records(state)}
    assert set(records) == {by_id[k]["build_id"] for k in
                            ("good", "bad", "infeasible", "synth")}
    assert records[by_id["good"]["build_id"]]["status"] == "verified"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"] == {"bad_input": 1, "infeasible_proven": 1,
                                 "validation_failed": 1, "verified": 2}


def _kill_when_started(markers: Path, run: int, deadline: float) -> int:
    """Wait for the generator's ``run``-th start and SIGKILL the worker process running it."""
    pid_file = markers / f"run{run}.pid"
    while not pid_file.exists() or not pid_file.read_text():
        if time.monotonic() > deadline:
            raise AssertionError(f"the generator's run {run} never started")
        time.sleep(0.1)
    pid = int(pid_file.read_text())
    assert pid != os.getpid()  # the worker, never the driver
    os.kill(pid, signal.SIGKILL)
    return pid


def _batch_in_thread(manifest: Path, options: BatchOptions) -> tuple[threading.Thread, dict]:
    box: dict[str, Any] = {}

    def go() -> None:
        try:
            box["report"] = batch(manifest, options)
        except BaseException as exc:  # surfaced by the test below
            box["error"] = exc

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    return thread, box


@pytest.mark.parametrize("mode", ["first", "always"])
def test_a_worker_killed_mid_build_loses_nothing_and_is_retried_once(
        tmp_path: Path, mode: str) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    tasks = [
        {"id": "before", "spec": "tiny.req", "candidate": "good/tiny.py"},
        {"id": "victim", "spec": "tiny.req",
         "generator": [sys.executable, "./gen.py", str(markers), mode]},
    ]
    manifest = _write(tmp_path, tasks)
    out, state = tmp_path / "out", tmp_path / "state"
    thread, box = _batch_in_thread(manifest, BatchOptions(workers=2, out=str(out),
                                                          state=str(state)))
    deadline = time.monotonic() + 240
    _kill_when_started(markers, 0, deadline)
    if mode == "always":
        _kill_when_started(markers, 1, deadline)
    thread.join(timeout=300)
    assert not thread.is_alive(), "the batch did not finish"
    assert "error" not in box, box.get("error")
    report = box["report"]
    by_id = {r["id"]: r for r in report.rows}
    assert by_id["before"]["status"] == "verified"  # reported before or after: never lost
    victim = by_id["victim"]
    assert victim["tries"] == 2
    records = {r["build_id"]: r for r in _records(state)}
    assert records[by_id["before"]["build_id"]]["status"] == "verified"
    if mode == "first":
        assert victim["status"] == "verified"
        assert victim["folder"].endswith("victim.try2")  # the dead try's folder is kept
        assert (out / "builds" / "victim").is_dir()
        assert not (out / "builds" / "victim" / "outcome.json").exists()
        assert report.exit_code == 0
    else:
        assert victim["status"] == "interrupted" and report.exit_code == 75
        assert records[victim["build_id"]]["status"] == "interrupted"
    assert len(records) == 2
    lines = (out / "results.jsonl").read_text().splitlines()
    assert sorted(json.loads(x)["id"] for x in lines) == ["before", "victim"]


@pytest.mark.parametrize(("line", "key", "message"), [
    ('{"id": "a", "spec": "tiny.req", "candidate": "good/tiny.py"', None, "not JSON"),
    ('{"id": "a", "spec": "tiny.req", "candidate": "good/tiny.py", "colour": 1}', "colour",
     "unknown key 'colour'"),
    ('{"id": "a", "spec": "nope.req", "candidate": "good/tiny.py"}', "spec", "does not exist"),
    ('{"id": "a", "spec": "tiny.req", "candidate": "good/tiny.py", "synth": true}', "synth",
     "exactly one of"),
    ('{"id": "../x", "spec": "tiny.req", "synth": true}', "id", "a task needs an \"id\""),
    ('{"id": "a", "spec": "tiny.req", "synth": true, "examples": 0}', "examples",
     "at least 1"),
    ('{"id": "a", "spec": "tiny.req", "synth": true, "sandbox": "vm"}', "sandbox",
     "auto or docker or process"),
    ('[1, 2]', None, "must be a JSON object"),
])
def test_a_bad_manifest_line_is_located_with_a_caret_and_nothing_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, key: str | None,
        message: str) -> None:
    _write(tmp_path, [])
    manifest = tmp_path / "m.jsonl"
    manifest.write_text('{"id": "ok", "spec": "tiny.req", "synth": true}\n\n' + line + "\n")
    out = tmp_path / "out"
    code = main(["batch", str(manifest), "--workers", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    column = line.find(f'"{key}"') + 1 if key else 1
    assert err.startswith(f"{manifest}:3:{column}: error: ")
    assert message in err and "^" in err and "Traceback" not in err
    assert not out.exists()  # nothing was started, nothing written


def test_a_duplicate_id_and_a_late_header_are_refused(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, [])
    manifest = tmp_path / "m.jsonl"
    task = '{"id": "same", "spec": "tiny.req", "synth": true}'
    manifest.write_text(f"{task}\n{task}\n")
    assert main(["batch", str(manifest), "--out", str(tmp_path / "o")]) == 2
    assert "used twice (first on line 1)" in capsys.readouterr().err
    manifest.write_text(f'{task}\n{{"format": "derivative.batch/v1"}}\n')
    assert main(["batch", str(manifest), "--out", str(tmp_path / "o")]) == 2
    assert "must come first" in capsys.readouterr().err
    manifest.write_text("\n# only a comment\n")
    assert main(["batch", str(manifest), "--out", str(tmp_path / "o")]) == 2
    assert "names no task" in capsys.readouterr().err


def test_a_spec_error_in_a_task_stops_the_batch_at_the_spec(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, [])
    (tmp_path / "broken.req").write_text("spec broken version 1\nparam x: int in 0..\n")
    manifest = tmp_path / "m.jsonl"
    manifest.write_text('{"id": "a", "spec": "broken.req", "synth": true}\n')
    assert main(["batch", str(manifest), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "broken.req:2:" in err and "^" in err
    assert not (tmp_path / "o").exists()


def test_workers_and_scheduler_are_exclusive_and_an_unreachable_scheduler_is_operational(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = _write(tmp_path, [{"id": "a", "spec": "tiny.req", "synth": True}])
    assert main(["batch", str(manifest), "--workers", "2", "--scheduler",
                 "tcp://127.0.0.1:1"]) == 2
    capsys.readouterr()
    out = tmp_path / "o"
    code = main(["batch", str(manifest), "--scheduler", "tcp://127.0.0.1:1", "--out",
                 str(out), "--connect-timeout", "2"])
    assert code == 75
    assert "no Dask scheduler answered" in capsys.readouterr().err
    assert not out.exists()  # nothing half-made left behind


def test_the_manifest_format_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "batch.md").read_text()
    for word in ("derivative.batch/v1", "--scheduler", "--workers", "interrupted",
                 "results.jsonl", "results.csv", "bad_input", "allowed-failures"):
        assert word in doc, word
    assert textwrap.dedent(doc)


def test_an_existing_cluster_runs_the_same_batch_unchanged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from distributed import LocalCluster

    manifest = _write(tmp_path, [
        {"id": "good", "spec": "tiny.req", "candidate": "good/tiny.py"},
        {"id": "bad", "spec": "tiny.req", "candidate": "bad/tiny.py"},
    ])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.CRITICAL) as cluster:
        out = tmp_path / "out"
        code = main(["batch", str(manifest), "--scheduler", str(cluster.scheduler_address),
                     "--out", str(out), "--state", str(tmp_path / "state"), "--json"])
    printed = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 0
    rows = {r["id"]: r["status"] for r in printed if "id" in r}
    assert rows == {"good": "verified", "bad": "validation_failed"}
    assert printed[-1]["counts"] == {"validation_failed": 1, "verified": 1}
    assert len(_records(tmp_path / "state")) == 2
