"""``derivative build`` as a process that dies, and as eight processes sharing one ledger.

A build is killed with SIGKILL at seeded random moments spread over a build's duration;
after each kill a fresh ``Ledger(STATE).recover()`` must leave the folder in one of the
states docs/build.md promises: a complete verified build (``outcome.json``, the package,
both consistent with the files and the ledger), or nothing published (no ``outcome.json``,
no package at its final name) with an ``interrupted`` record, or, when the process died
before the ledger journalled the build, no record and no outcome at all. Then eight builds
run at once against one state folder, and the ledger must hold all eight records.

The builds are real subprocesses (``python -m derivative build``) of this clone, so the
kill hits the real interpreter wherever it happens to be: importing, solving, judging in
the sandbox, writing the package, committing, renaming.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from derivative.cli import main
from derivative.forge.build import Ledger, LedgerRecord, verify_package

ROOT = Path(__file__).resolve().parents[2]
WHEEL = "discount-1-py3-none-any.whl"
KILLS = 20
SPREAD = 1.1  # a little past the measured duration, so that some kills come too late
SEED = 20240611

pytestmark = pytest.mark.slow


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("DERIVATIVE_STATE", None)
    return env


def _build(out: Path, state: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "derivative", "build", "examples/discount.req", "--synth",
         "--sandbox", "process", "--out", str(out), "--state", str(state)],
        cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _begun(state: Path, folder: Path) -> list[str]:
    """The build ids the ledger journalled for ``folder`` (read-only, beside the API)."""
    conn = sqlite3.connect(f"file:{state / 'ledger.sqlite3'}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT build_id FROM begun WHERE folder = ?",
                            (str(folder.resolve()),)).fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows]


def _records(ledger: Ledger, folder: Path) -> list[LedgerRecord]:
    return [r for r in ledger.log() if r.folder == str(folder.resolve())]


def _complete(out: Path, records: list[LedgerRecord]) -> None:
    """A published build: its outcome claims nothing the files and the ledger do not show."""
    doc: dict[str, Any] = json.loads((out / "outcome.json").read_text(encoding="utf-8"))
    assert doc["status"] == "verified", doc
    for name, digest in doc["evidence"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name
    package = out / WHEEL
    assert doc["package"]["path"] == str(package.resolve())
    assert hashlib.sha256(package.read_bytes()).hexdigest() == doc["package"]["sha256"]
    assert verify_package(package).ok
    (record,) = records
    assert (record.build_id, record.status) == (doc["build_id"], "verified")
    assert record.package_sha256 == doc["package"]["sha256"]
    assert not list(out.glob(".*.tmp")) and not (out / ".publish.pending").exists()


def _settled(out: Path, state: Path, ledger: Ledger) -> str:
    """Which promised state the killed build's folder is in (asserting it is one)."""
    records = _records(ledger, out)
    if (out / "outcome.json").exists():
        _complete(out, records)
        return "verified"
    assert not (out / WHEEL).exists(), "a package without its outcome"
    assert not list(out.glob("*.whl")) and not list(out.glob(".*.tmp"))
    begun = _begun(state, out) if (state / "ledger.sqlite3").exists() else []
    if not begun:
        assert records == [], "a record for a build the ledger never journalled"
        return "not begun"
    assert [r.build_id for r in records] == begun
    assert [r.status for r in records] == ["interrupted"], records
    assert records[0].package is None
    return "interrupted"


def test_a_killed_build_publishes_all_or_nothing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    began = time.monotonic()
    full = _build(tmp_path / "full", state)
    _, err = full.communicate(timeout=300)
    duration = time.monotonic() - began
    assert full.returncode == 0, err.decode()

    rng = random.Random(SEED)
    # one delay in each of KILLS equal slices of the build's duration: spread over all of it
    delays = [(i + rng.random()) * SPREAD * duration / KILLS for i in range(KILLS)]
    seen: Counter[str] = Counter()
    for i, delay in enumerate(delays):
        out = tmp_path / f"killed{i}"
        proc = _build(out, state)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        Ledger(state).recover()
        kind = _settled(out, state, Ledger(state))
        seen[kind] += 1
        assert Ledger(state).unended() == [], (i, delay)
    assert sum(seen.values()) == KILLS >= 15
    assert seen["interrupted"] >= 1, f"no kill landed inside a build: {dict(seen)}"

    # and the ledger still takes a build after all that
    after = _build(tmp_path / "after", state)
    _, err = after.communicate(timeout=300)
    assert after.returncode == 0, err.decode()
    _complete(tmp_path / "after", _records(Ledger(state), tmp_path / "after"))


def test_eight_parallel_builds_lose_no_ledger_record(tmp_path: Path) -> None:
    state = tmp_path / "state"
    outs = [tmp_path / f"build{i}" for i in range(8)]
    procs = [_build(out, state) for out in outs]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()

    stdout = io.StringIO()
    assert main(["ledger", "log", "--state", str(state), "--json"], stdout=stdout,
                stderr=io.StringIO()) == 0
    records = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert len(records) == 8
    assert {r["status"] for r in records} == {"verified"}
    assert sorted(r["folder"] for r in records) == sorted(str(o.resolve()) for o in outs)
    for out in outs:
        doc = json.loads((out / "outcome.json").read_text(encoding="utf-8"))
        (record,) = [r for r in records if r["folder"] == str(out.resolve())]
        assert record["build_id"] == doc["build_id"]
        assert record["package"] == str((out / WHEEL).resolve())
    assert Ledger(state).unended() == []
