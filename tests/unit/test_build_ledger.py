"""The build ledger and publishing as a transaction.

The ledger: where it lives, that SQLite itself refuses updates and deletes, what ``status``,
``log`` and ``identity_changed`` answer, and that eight processes appending at once lose no
record. Publishing: ``write_atomic``, the checks before the commit point, and recovery. A
publish is cut short at every step (in process, by an exception, and in a forked child killed
with SIGKILL, both at named steps and at random moments); after each, a fresh
``Ledger.recover()`` must leave either a verified record, the package at its final path and an
``outcome.json`` saying verified, or an ``interrupted`` record, no package at the final path
and no ``outcome.json``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from derivative._errors import UsageError
from derivative.forge.build import (
    BuildError,
    Ledger,
    LedgerAnswer,
    LedgerRecord,
    _lease,
    _publish,
    default_state_dir,
    in_toto_statement,
    make_package,
    publish,
    result_predicate,
    utc_now,
    verify_package,
    wheel_name,
    write_atomic,
)

ID1, ID2 = "1" * 64, "2" * 64
CAND, OTHER = "c" * 64, "d" * 64
STEPS = (
    "write:.outcome.pending", *_publish.STEPS[:2], "write:.publish.pending",
    *_publish.STEPS[2:5], "write:outcome.json", *_publish.STEPS[5:],
)


def _rec(
    build_id: str,
    *,
    status: str = "validation_failed",
    version: int = 1,
    identity: str = ID1,
    candidate: str | None = CAND,
    folder: str = "/tmp/derivative-test-folder",
    name: str = "toy",
    **more: Any,
) -> LedgerRecord:
    fields: dict[str, object] = {
        "build_id": build_id, "candidate_sha256": candidate, "contract_name": name,
        "contract_version": version, "contract_sha256": identity, "status": status,
        "reason": f"{status} for the test", "started_at": utc_now(), "finished_at": utc_now(),
        "folder": folder, "package": None, "package_sha256": None, "policy": "default",
        "enforced": True, "tool_version": "0.1.0",
    }
    fields.update(more)
    return LedgerRecord(**fields)  # type: ignore[arg-type]


@pytest.fixture()
def ledger(tmp_path: Path) -> Ledger:
    return Ledger(tmp_path / "state")


@pytest.fixture(autouse=True)
def _no_hook_and_no_held_folder() -> Iterator[None]:
    yield
    _publish._step_hook = None
    for lease in list(_lease._HELD.values()):
        lease.release()


# --------------------------------------------------------------------------- where it lives


def test_default_state_dir_is_never_the_working_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("DERIVATIVE_STATE", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert default_state_dir() == tmp_path / "home" / ".local" / "share" / "derivative"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")  # invalid by the XDG spec: ignored
    assert default_state_dir() == tmp_path / "home" / ".local" / "share" / "derivative"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_state_dir() == tmp_path / "xdg" / "derivative"
    monkeypatch.setenv("DERIVATIVE_STATE", str(tmp_path / "state"))
    assert default_state_dir() == tmp_path / "state"
    monkeypatch.setenv("DERIVATIVE_STATE", ".")
    with pytest.raises(UsageError, match="absolute"):
        default_state_dir()


def test_the_file_is_sqlite_in_wal_mode(ledger: Ledger) -> None:
    assert ledger.path.name == "ledger.sqlite3"
    with sqlite3.connect(ledger.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# --------------------------------------------------------------------------- append-only


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE records SET status = 'verified'",
        "DELETE FROM records",
        "INSERT OR REPLACE INTO records SELECT * FROM records",
        "UPDATE begun SET pid = 1",
        "DELETE FROM begun",
        "DELETE FROM ended",
        "INSERT OR REPLACE INTO ended SELECT * FROM ended",
    ],
)
def test_sqlite_itself_refuses_to_change_the_past(
    ledger: Ledger, tmp_path: Path, statement: str
) -> None:
    folder = tmp_path / "b"
    with ledger.begin(build_id="b", folder=folder, contract_name="toy", contract_version=1,
                      contract_sha256=ID1):
        publish(folder=folder, ledger=ledger, record=_rec("b", folder=str(folder)),
                package_tmp=None, package_final=None, outcome_bytes=b"{}")
    conn = sqlite3.connect(ledger.path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute(statement)
    conn.close()
    assert [r.status for r in ledger.log()] == ["validation_failed"]


def test_one_record_per_build(ledger: Ledger) -> None:
    ledger.record(_rec("b1"))
    with pytest.raises(BuildError, match="already has its record"):
        ledger.record(_rec("b1", status="verified"))
    assert ledger.append_if_absent(_rec("b1")) is False
    assert len(ledger.log()) == 1


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"status": "passed"}, "unknown status"),
        ({"folder": "relative/folder"}, "absolute"),
        ({"contract_sha256": "ABC"}, "SHA-256"),
        ({"package": "/tmp/x.whl", "package_sha256": CAND}, "only a verified build"),
        ({"status": "verified", "package": "/tmp/x.whl"}, "go together"),
        ({"contract_version": 0}, "positive integer"),
        ({"started_at": "2024-01-01 10:00"}, "UTC ISO 8601"),
        ({"finished_at": "2024-01-01T10:00:00+02:00"}, "UTC ISO 8601"),
    ],
)
def test_a_record_must_make_sense(change: dict[str, Any], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        _rec("b", **change)


# --------------------------------------------------------------------------- what it answers


def test_log_is_newest_first_with_limit_and_contract(ledger: Ledger) -> None:
    for i in range(5):
        ledger.record(_rec(f"b{i}", name="toy" if i % 2 else "other"))
    assert [r.build_id for r in ledger.log()] == ["b4", "b3", "b2", "b1", "b0"]
    assert [r.build_id for r in ledger.log(limit=2)] == ["b4", "b3"]
    assert [r.build_id for r in ledger.log(contract_name="toy")] == ["b3", "b1"]
    assert ledger.log(limit=0) == []
    with pytest.raises(UsageError):
        ledger.log(limit=-1)


def _ask(
    ledger: Ledger, version: int = 2, identity: str = ID2, candidate: str = CAND
) -> LedgerAnswer:
    return ledger.status(contract_name="toy", contract_version=version, contract_sha256=identity,
                         candidate_sha256=candidate)


def test_status_distinguishes_exact_older_and_never(ledger: Ledger) -> None:
    answer = _ask(ledger)
    assert answer.kind == "never" and answer.record is None
    ledger.record(_rec("v1", status="verified", version=1, identity=ID1))
    older = _ask(ledger)
    assert older.kind == "verified_older" and older.version == 1
    assert older.record is not None and older.record.build_id == "v1"
    assert "proves nothing about version 2" in older.sentence
    assert _ask(ledger, candidate=OTHER).kind == "never"
    ledger.record(_rec("v2-failed", status="validation_failed", version=2, identity=ID2))
    assert _ask(ledger).kind == "verified_older"
    ledger.record(_rec("v2", status="verified", version=2, identity=ID2))
    exact = _ask(ledger)
    assert exact.kind == "verified" and exact.record is not None
    assert exact.record.build_id == "v2"
    assert _ask(ledger, version=1, identity=ID1).kind == "verified"


def test_same_version_other_identity_does_not_count(ledger: Ledger) -> None:
    ledger.record(_rec("old-meaning", status="verified", version=2, identity=ID1))
    answer = _ask(ledger, version=2, identity=ID2)
    assert answer.kind == "never"
    assert "changed without a version bump" in answer.sentence
    ledger.record(_rec("v1", status="verified", version=1, identity=ID1))
    assert _ask(ledger, version=2, identity=ID2).kind == "verified_older"


def test_a_newer_version_proves_nothing_about_an_older_one(ledger: Ledger) -> None:
    ledger.record(_rec("v3", status="verified", version=3, identity=ID1))
    answer = _ask(ledger, version=2, identity=ID2)
    assert answer.kind == "never"
    assert "verified against version 3" in answer.sentence


def test_a_later_counterexample_is_reported_beside_a_pass(ledger: Ledger) -> None:
    ledger.record(_rec("pass", status="verified", version=2, identity=ID2))
    ledger.record(_rec("fail", status="validation_failed", version=2, identity=ID2))
    answer = _ask(ledger)
    assert answer.kind == "verified"
    assert "later build, fail" in answer.sentence


def test_identity_changed_warns_about_a_silent_change_of_meaning(ledger: Ledger) -> None:
    assert ledger.identity_changed("toy", 1, ID1) is None
    ledger.record(_rec("b", version=1, identity=ID1))
    assert ledger.identity_changed("toy", 1, ID1) is None
    assert ledger.identity_changed("toy", 2, ID2) is None
    warning = ledger.identity_changed("toy", 1, ID2)
    assert warning is not None and "meaning changed without a version bump" in warning


def _append_many(state: Path, worker: int, count: int) -> None:
    ledger = Ledger(state)
    for i in range(count):
        ledger.record(_rec(f"w{worker}-{i}"))


@pytest.mark.slow
def test_eight_processes_appending_at_once_lose_nothing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    Ledger(state)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_append_many, args=(state, w, 25)) for w in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * 8
    ids = [r.build_id for r in Ledger(state).log()]
    assert len(ids) == 200 and set(ids) == {f"w{w}-{i}" for w in range(8) for i in range(25)}


# --------------------------------------------------------------------------- write_atomic


def test_write_atomic_replaces_whole_files_and_leaves_no_debris(tmp_path: Path) -> None:
    target = tmp_path / "outcome.json"
    write_atomic(target, b"first")
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second"

    def fail(step: str) -> None:
        raise RuntimeError(step)

    _publish._step_hook = fail
    with pytest.raises(RuntimeError, match=r"write:outcome\.json"):
        write_atomic(target, b"third")
    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outcome.json"]


# --------------------------------------------------------------------------- a toy build


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _toy_package(folder: Path) -> tuple[Path, Path, str]:
    """A small verified package in ``folder/dist``: (temporary path, final path, SHA-256)."""
    spec = json.dumps({"format": "derivative.contract/v1",
                       "spec": {"name": "toy", "version": 1, "sha256": ID1}}).encode()
    candidate = {"toy.py": b"def f(x):\n    return x\n"}
    predicate = result_predicate(
        passed=["E1"], failed=[], contract_name="toy", contract_version=1, contract_sha256=ID1,
        spec_sha256=_sha(spec), gates={}, outcome="verified",
        evidence={"run.json": _sha(b"{}")}, time="2024-01-01T00:00:00Z",
    )
    statement = in_toto_statement(subjects={"toy.py": _sha(candidate["toy.py"])},
                                  predicate=predicate)
    tmp, sha = make_package(dest_dir=folder / "dist", dist_name="toy", version="1.0",
                            candidate_files=candidate, statement=statement,
                            evidence_files={"build_spec.json": spec, "run.json": b"{}"})
    return tmp, folder / "dist" / wheel_name("toy", "1.0"), sha


def _outcome(build_id: str) -> bytes:
    return json.dumps({"build": build_id, "status": "verified"}).encode()


def _begin(ledger: Ledger, folder: Path, build_id: str) -> _lease.BuildLease:
    return ledger.begin(build_id=build_id, folder=folder, contract_name="toy",
                        contract_version=1, contract_sha256=ID1)


def _build(ledger: Ledger, folder: Path, build_id: str) -> None:
    """Package and publish a verified toy build whose ``begin`` already ran."""
    tmp, final, sha = _toy_package(folder)
    record = _rec(build_id, status="verified", folder=str(folder.resolve()),
                  package=str(final.resolve()), package_sha256=sha)
    publish(folder=folder, ledger=ledger, record=record, package_tmp=tmp, package_final=final,
            outcome_bytes=_outcome(build_id))


def _settled(state: Path, folder: Path, build_id: str) -> str:
    """Recover with a fresh ledger and check the one invariant; return the status."""
    ledger = Ledger(state)
    ledger.recover()
    rec = ledger.get(build_id)
    assert rec is not None, "every begun build ends with a record"
    assert ledger.unended() == []
    final = folder / "dist" / wheel_name("toy", "1.0")
    outcome = folder / "outcome.json"
    if rec.status == "verified":
        assert rec.package == str(final.resolve()) and final.is_file()
        assert _sha(final.read_bytes()) == rec.package_sha256
        assert verify_package(final).ok
        assert outcome.read_bytes() == _outcome(build_id)
    else:
        assert rec.status == "interrupted", rec
        assert not final.exists()
        assert not outcome.exists()
    debris = [p.name for p in folder.rglob("*") if p.name.endswith((".tmp", ".pending"))]
    assert debris == []
    return rec.status


def test_publish_writes_package_record_and_outcome(ledger: Ledger, tmp_path: Path) -> None:
    folder = tmp_path / "b"
    _begin(ledger, folder, "b")
    _build(ledger, folder, "b")
    assert _settled(ledger.state_dir, folder, "b") == "verified"
    assert not _lease._HELD, "publish lets go of the folder"


def test_publish_checks_before_the_commit_point(ledger: Ledger, tmp_path: Path) -> None:
    folder = tmp_path / "b"
    _begin(ledger, folder, "b")
    tmp, final, sha = _toy_package(folder)
    base: dict[str, Any] = {"status": "verified", "folder": str(folder.resolve())}
    cases: list[tuple[LedgerRecord, Path, type[Exception], str]] = [
        (_rec("b", **base, package=str(final), package_sha256="0" * 64), final, BuildError,
         "does not hold the bytes"),
        (_rec("b", **base, package=str(tmp_path / "x.whl"), package_sha256=sha), final,
         UsageError, "the record names package"),
        (_rec("b", **base, package=str(tmp_path / "x.whl"), package_sha256=sha),
         tmp_path / "x.whl", UsageError, "share a folder"),
        (_rec("b", status="verified", folder=str(tmp_path), package=str(final),
              package_sha256=sha), final, UsageError, "names folder"),
    ]
    for record, where, error, words in cases:
        with pytest.raises(error, match=words):
            publish(folder=folder, ledger=ledger, record=record, package_tmp=tmp,
                    package_final=where, outcome_bytes=b"{}")
    assert ledger.get("b") is None


def test_a_refused_commit_withdraws_the_publish(ledger: Ledger, tmp_path: Path) -> None:
    folder = tmp_path / "b"
    _begin(ledger, folder, "b")
    ledger.record(_rec("b", folder=str(folder.resolve())))  # the build already has its record
    with pytest.raises(BuildError, match="already has its record"):
        _build(ledger, folder, "b")
    assert not (folder / "outcome.json").exists()
    assert not (folder / "dist" / wheel_name("toy", "1.0")).exists()
    assert not [p for p in folder.iterdir() if p.name.endswith(".pending")]


def test_write_atomic_reports_an_unwritable_place_as_a_build_error(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="cannot write"):
        write_atomic(tmp_path / "missing" / "outcome.json", b"{}")


# --------------------------------------------------------------------------- recovery


def test_recover_leaves_a_running_build_alone(ledger: Ledger, tmp_path: Path) -> None:
    lease = _begin(ledger, tmp_path / "b", "b")
    assert Ledger(ledger.state_dir).recover() == []
    assert [b.build_id for b in ledger.unended()] == ["b"]
    with pytest.raises(UsageError, match="in use by another build"):
        _begin(ledger, tmp_path / "b", "b2")
    with pytest.raises(UsageError, match="ids are unique"):
        _begin(ledger, tmp_path / "elsewhere", "b")
    lease.release()
    [rec] = Ledger(ledger.state_dir).recover()
    assert rec.status == "interrupted" and "ended before its result" in rec.reason
    assert rec.contract_sha256 == ID1 and rec.folder == str((tmp_path / "b").resolve())
    assert Ledger(ledger.state_dir).recover() == []


@pytest.mark.parametrize("step", STEPS)
def test_a_publish_cut_short_at_each_step_recovers(
    ledger: Ledger, tmp_path: Path, step: str
) -> None:
    """The in-process version of the crash test: an exception at a step, then the lease goes."""
    folder = tmp_path / "b"

    def stop(at: str) -> None:
        if at == step:
            raise KeyboardInterrupt(at)

    lease = _begin(ledger, folder, "b")
    _publish._step_hook = stop
    with pytest.raises(KeyboardInterrupt):
        _build(ledger, folder, "b")
    _publish._step_hook = None
    lease.release()
    committed = STEPS.index(step) >= STEPS.index("committed")
    assert _settled(ledger.state_dir, folder, "b") == ("verified" if committed else "interrupted")


def test_begin_settles_the_folder_first(ledger: Ledger, tmp_path: Path) -> None:
    folder = tmp_path / "b"
    _begin(ledger, folder, "first")
    _build(ledger, folder, "first")
    _begin(ledger, folder, "second").release()  # dies without a record
    assert (folder / "dist" / wheel_name("toy", "1.0")).is_file()
    lease = _begin(ledger, folder, "third")
    assert not (folder / "outcome.json").exists(), "the folder speaks only for this build"
    second = ledger.get("second")
    assert second is not None and second.status == "interrupted"
    lease.release()


def test_a_replaced_lock_file_falls_back_to_the_process(ledger: Ledger, tmp_path: Path) -> None:
    folder = tmp_path / "b"
    lease = _begin(ledger, folder, "b")
    lease.release()
    (folder / ".build.lock").unlink()  # the lock proves nothing now; this process still runs
    assert ledger.recover() == []
    pid = os.fork()
    if pid == 0:  # a build in a child that dies
        try:
            _begin(Ledger(ledger.state_dir), tmp_path / "c", "c")
            (tmp_path / "c" / ".build.lock").unlink()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert [r.build_id for r in ledger.recover()] == ["c"]


def test_process_marks_tell_a_reused_pid(tmp_path: Path) -> None:
    lease = _lease.BuildLease.try_take(tmp_path, "x")
    assert lease is not None
    mark = _lease.current_mark(lease)
    lease.release()
    assert not _lease.process_gone(mark)
    assert _lease.process_gone(_lease.ProcessMark(**{**mark.__dict__, "proc_start": "1"}))
    assert _lease.process_gone(_lease.ProcessMark(**{**mark.__dict__, "boot_id": "other"}))
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    assert _lease.process_gone(_lease.ProcessMark(**{**mark.__dict__, "pid": pid}))


def test_another_hosts_build_is_not_ours_to_judge(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("socket.gethostname", lambda: "elsewhere")
    _begin(ledger, tmp_path / "b", "b").release()
    monkeypatch.undo()
    assert ledger.recover() == []
    assert [b.build_id for b in ledger.unended()] == ["b"]


# --------------------------------------------------------------------------- real crashes


def _die_at(target: str, step: str) -> None:
    if step == target:
        os.kill(os.getpid(), signal.SIGKILL)


def _child(state: Path, folder: Path, build_id: str, kill_at: str | None, ready: int) -> None:
    """In a forked child: begin, say ready, package and publish. Never returns."""
    code = 1
    try:
        if kill_at is not None:
            _publish._step_hook = functools.partial(_die_at, kill_at)
        ledger = Ledger(state)
        _begin(ledger, folder, build_id)
        os.write(ready, b"r")
        _build(ledger, folder, build_id)
        code = 0
    finally:
        os._exit(code)


def _run_child(state: Path, folder: Path, build_id: str, *, kill_at: str | None = None,
               delay: float | None = None) -> tuple[int, float]:
    """Fork a publishing child, optionally SIGKILL it ``delay`` seconds after it is ready;
    return its wait status and how long it ran after being ready."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _child(state, folder, build_id, kill_at, write)
    os.close(write)
    os.read(read, 1)
    os.close(read)
    start = time.monotonic()
    if delay is not None:
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)  # a zombie until reaped, so the pid cannot be reused
    _, status = os.waitpid(pid, 0)
    return status, time.monotonic() - start


@pytest.mark.slow
@pytest.mark.parametrize("step", STEPS)
def test_sigkill_at_each_step_recovers(tmp_path: Path, step: str) -> None:
    state, folder = tmp_path / "state", tmp_path / "b"
    status, _ = _run_child(state, folder, "b", kill_at=step)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    committed = STEPS.index(step) >= STEPS.index("committed")
    assert _settled(state, folder, "b") == ("verified" if committed else "interrupted")


@pytest.mark.slow
def test_sigkill_at_random_moments_recovers(tmp_path: Path) -> None:
    state = tmp_path / "state"
    status, took = _run_child(state, tmp_path / "calibrate", "calibrate")
    assert status == 0 and _settled(state, tmp_path / "calibrate", "calibrate") == "verified"
    seed = int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    for run in range(40):
        folder, delay = tmp_path / f"b{run}", rng.uniform(0, took * 1.3)
        _run_child(state, folder, f"b{run}", delay=delay)
        try:
            _settled(state, folder, f"b{run}")
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}, run {run}, killed after {delay:.4f} s") from exc


def _publish_many(state: Path, root: Path, worker: int, count: int) -> None:
    ledger = Ledger(state)
    for i in range(count):
        folder = root / f"w{worker}-{i}"
        _begin(ledger, folder, folder.name)
        _build(ledger, folder, folder.name)


@pytest.mark.slow
def test_eight_parallel_publishers_lose_no_record(tmp_path: Path) -> None:
    state = tmp_path / "state"
    Ledger(state)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_publish_many, args=(state, tmp_path, w, 5)) for w in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * 8
    records = Ledger(state).log()
    assert len(records) == 40 and {r.status for r in records} == {"verified"}
    for r in records:
        assert _settled(state, Path(r.folder), r.build_id) == "verified"
