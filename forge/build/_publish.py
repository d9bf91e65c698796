"""Publishing a build as one transaction, and settling a build that a crash cut short.

The promises, whatever moment the process dies at:

(a) a package is visible (at its final name) only after the evidence files and its ledger
    record are durable;
(b) after recovery the ledger never records a package that does not exist;
(c) ``outcome.json`` is written last and atomically, so it never claims more than was proven.

The order that keeps them: the outcome's bytes and a plan (which build, which record, which
package files) are written durably beside the build first; the package's bytes and its
directory entry are synced; then the ledger record commits (the commit point); then the
package is renamed to its final name; then ``outcome.json`` is written; then the pending
files go and the build is marked ended. A build that dies before the commit point has
published nothing: recovery removes its half-written files and records it ``interrupted``.
One that dies after it has published: recovery finishes the rename and writes exactly the
outcome bytes it had set aside (it never composes an outcome of its own).

``write_atomic`` is the one way build files are written: a temporary file in the same folder,
fsync, ``os.replace``, fsync of the folder, so a reader sees the old file or the new one and a
crash leaves at most a ``.NAME.XXXXXXXXXXXXXXXX.tmp`` that recovery sweeps away.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from derivative._canon import sha256_hex, sha256_json
from derivative._errors import UsageError

from ._lease import BuildLease, is_local, lock_is_original, process_gone
from ._ledger import BegunBuild, BuildError, Ledger, LedgerRecord, utc_now

OUTCOME_FILE = "outcome.json"
PENDING_OUTCOME = ".outcome.pending"
PLAN_FILE = ".publish.pending"
_TEMP = re.compile(r"\..+\.[0-9a-f]{16}\.tmp")

# Called with the name of each step as it completes; crash tests set it to kill the process
# there. Production code never sets it.
STEPS = (
    "outcome-pending", "package-synced", "plan-written", "committed", "renamed",
    "outcome-written", "cleaned",
)
_step_hook: Callable[[str], None] | None = None


def _step(name: str) -> None:
    if _step_hook is not None:
        _step_hook(name)


# --------------------------------------------------------------------------- durable files


def temp_path(path: Path) -> Path:
    """A fresh temporary name beside ``path`` that recovery recognises as debris."""
    return path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"


def fsync_dir(path: Path) -> None:
    """Make a folder's entries (a new, renamed or removed file) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, *, sync_dir: bool = True) -> None:
    """Replace ``path`` with ``data`` so that any reader, even after a crash, sees all or none.

    The file is written under a temporary name in the same folder (so the rename cannot cross
    file systems), synced, renamed over ``path`` and the folder synced. ``sync_dir=False``
    leaves the folder's sync to the caller, who then syncs each folder once before anything
    depends on the names being durable (the build folder does, before the ledger commit).
    """
    tmp = temp_path(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            _step(f"write:{path.name}")
            os.replace(tmp, path)
        except BaseException:
            _unlink(tmp)
            raise
        if sync_dir:
            fsync_dir(path.parent)
    except OSError as exc:  # a full disk or a read-only folder is not a bug of ours
        raise BuildError(f"cannot write {path}: {exc.strerror or exc}") from exc


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def record_digest(rec: LedgerRecord) -> str:
    """The SHA-256 of a record's canonical JSON: ties a pending publish to its one record."""
    return sha256_json(asdict(rec))


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class _Plan:
    """What a publish in progress will do, written before the commit point."""

    build_id: str
    record_sha256: str
    outcome_sha256: str
    package_tmp: str | None
    package_final: str | None


def _read_plan(folder: Path) -> _Plan | None:
    try:
        raw = (folder / PLAN_FILE).read_bytes()
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    try:
        return _Plan(**json.loads(raw))
    except (ValueError, TypeError) as exc:  # written atomically: unreadable means tampered
        raise BuildError(f"{folder / PLAN_FILE} is not a publish plan: {exc}") from exc


# --------------------------------------------------------------------------- publishing


def publish(
    *,
    folder: Path,
    ledger: Ledger,
    record: LedgerRecord,
    package_tmp: Path | None,
    package_final: Path | None,
    outcome_bytes: bytes,
) -> None:
    """Commit a build's record and make its package and ``outcome.json`` visible, in the
    one order that keeps the module's three promises (see the module docstring).

    ``package_tmp`` must hold exactly the bytes ``record.package_sha256`` names and sit in
    the folder of ``package_final`` (the rename must be atomic); ``record.package`` must be
    ``package_final``. Evidence files are the caller's, written with ``write_atomic`` before.
    """
    folder = _checked_folder(folder, record)
    tmp, final = _checked_package(record, package_tmp, package_final)
    plan = _Plan(
        build_id=record.build_id,
        record_sha256=record_digest(record),
        outcome_sha256=sha256_hex(outcome_bytes),
        package_tmp=None if tmp is None else str(tmp),
        package_final=None if final is None else str(final),
    )
    # The files before the commit point are synced as they are written and their folders
    # once, just before the commit: all of them are durable when the record is.
    write_atomic(folder / PENDING_OUTCOME, outcome_bytes, sync_dir=False)
    _step("outcome-pending")
    if tmp is not None:
        fsync_file(tmp)
        _step("package-synced")
    write_atomic(folder / PLAN_FILE, json.dumps(asdict(plan), sort_keys=True).encode(),
                 sync_dir=False)
    _step("plan-written")
    for directory in sorted({folder, *([tmp.parent] if tmp is not None else [])}):
        fsync_dir(directory)
    _commit(folder, ledger, record)  # the commit point
    _step("committed")
    if tmp is not None and final is not None:
        _rename(tmp, final)
        _step("renamed")
    write_atomic(folder / OUTCOME_FILE, outcome_bytes)
    _step("outcome-written")
    _drop_pending(folder)
    _step("cleaned")
    ledger.end(record.build_id)


def _checked_folder(folder: Path, record: LedgerRecord) -> Path:
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise UsageError(f"the build folder {folder} does not exist")
    if Path(record.folder).resolve() != folder:
        raise UsageError(f"the record names folder {record.folder}, not {folder}")
    return folder


def _checked_package(
    record: LedgerRecord, package_tmp: Path | None, package_final: Path | None
) -> tuple[Path | None, Path | None]:
    """The package's two names, checked against the record before anything is committed."""
    if package_tmp is None and package_final is None:
        if record.package is not None:
            raise UsageError(f"the record names package {record.package} but none was given")
        return None, None
    if package_tmp is None or package_final is None:
        raise UsageError("a package needs both its temporary and its final path")
    tmp, final = Path(package_tmp).resolve(), Path(package_final).resolve()
    if tmp.parent != final.parent:
        raise UsageError(f"{tmp} and {final} must share a folder so the rename is atomic")
    if record.package is None or Path(record.package).resolve() != final:
        raise UsageError(f"the record names package {record.package}, not {final}")
    if not tmp.is_file():
        raise UsageError(f"the package {tmp} does not exist")
    if sha256_file(tmp) != record.package_sha256:
        raise BuildError(f"{tmp} does not hold the bytes whose SHA-256 the record names")
    return tmp, final


def _commit(folder: Path, ledger: Ledger, record: LedgerRecord) -> None:
    """Append the record; if that fails, withdraw the plan so nothing claims it committed.

    A failure reported after SQLite did commit (the record is there, byte for byte) counts
    as the commit it is.
    """
    try:
        ledger.record(record)
    except BuildError:
        found = ledger.get(record.build_id)
        if found is not None and record_digest(found) == record_digest(record):
            return
        _drop_pending(folder)
        raise


def _rename(tmp: Path, final: Path) -> None:
    try:
        os.replace(tmp, final)
        fsync_dir(final.parent)
    except OSError as exc:  # recovery finishes it: the record has committed
        raise BuildError(f"cannot move the package to {final}: {exc.strerror or exc}") from exc


def _drop_pending(folder: Path) -> None:
    """Remove the pending outcome, then the plan (so a plan without its outcome means the
    outcome is already written), then make the removals durable."""
    _unlink(folder / PENDING_OUTCOME)
    _unlink(folder / PLAN_FILE)
    fsync_dir(folder)


# --------------------------------------------------------------------------- recovery


def recover_build(ledger: Ledger, begun: BegunBuild) -> LedgerRecord | None:
    """Settle one begun build if its process is gone; None if it runs or was settled."""
    if not is_local(begun.mark):
        return None
    lease = _lease_if_gone(begun)
    if lease is None:
        return None
    with lease:
        return _settle(ledger, begun)


def recover_folder(ledger: Ledger, folder: Path, lease: BuildLease) -> None:
    """Settle the earlier builds of a folder whose lock ``lease`` holds (so none is running)."""
    if not lease.held:
        raise BuildError(f"recovering {folder} needs its lock")
    for begun in ledger.unended(folder):
        _settle(ledger, begun)


def clear_for_new_build(folder: Path) -> None:
    """Remove what an earlier, settled build left that could speak for the next one."""
    for name in (OUTCOME_FILE, PENDING_OUTCOME, PLAN_FILE):
        _unlink(folder / name)
    _sweep_temp(folder)
    fsync_dir(folder)


def _lease_if_gone(begun: BegunBuild) -> BuildLease | None:
    """The folder's lock if the build's process is gone, else None.

    The lock file the build locked decides when it is still there; otherwise (folder or lock
    file removed or replaced) the process id, its start time and the boot id decide.
    """
    folder = Path(begun.folder)
    if lock_is_original(folder, begun.mark):
        return BuildLease.try_take(folder, begun.build_id)
    if not process_gone(begun.mark):
        return None
    if folder.is_dir():
        return BuildLease.try_take(folder, begun.build_id)
    return BuildLease.nothing(folder, begun.build_id)


def _settle(ledger: Ledger, begun: BegunBuild) -> LedgerRecord | None:
    """Roll a committed build forward, or undo an uncommitted one and record it interrupted."""
    if ledger.has_ended(begun.build_id):
        return None
    folder = Path(begun.folder)
    rec = ledger.get(begun.build_id)
    if rec is not None:
        _roll_forward(folder, rec)
        ledger.end(rec.build_id)
        return rec
    _discard(folder, begun.build_id)  # before the record: a crash here leaves no record yet
    rec = _interrupted(begun)
    appended = ledger.append_if_absent(rec)
    ledger.end(begun.build_id)
    return rec if appended else None


def _roll_forward(folder: Path, rec: LedgerRecord) -> None:
    """Finish a publish whose record committed: the rename, then the set-aside outcome."""
    plan = _read_plan(folder)
    if plan is None or plan.build_id != rec.build_id:
        _sweep_temp(folder)
        return  # nothing pending: its files were final before the process ended
    if plan.record_sha256 != record_digest(rec):
        _discard(folder, rec.build_id)  # a publish the record does not back never committed
        return
    if plan.package_tmp is not None and plan.package_final is not None:
        _finish_rename(Path(plan.package_tmp), Path(plan.package_final), rec)
    pending = folder / PENDING_OUTCOME
    if pending.exists():
        data = pending.read_bytes()
        if sha256_hex(data) != plan.outcome_sha256:
            raise BuildError(f"{pending} is not the outcome build {rec.build_id} set aside")
        write_atomic(folder / OUTCOME_FILE, data)
    _sweep_temp(folder)  # a write the crash cut short
    _drop_pending(folder)


def _finish_rename(tmp: Path, final: Path, rec: LedgerRecord) -> None:
    if tmp.exists():
        if sha256_file(tmp) != rec.package_sha256:
            raise BuildError(f"{tmp} is not the package build {rec.build_id} recorded")
        os.replace(tmp, final)
        fsync_dir(final.parent)
    elif not final.exists():
        raise BuildError(
            f"build {rec.build_id} recorded the package {final}, but neither it nor {tmp} "
            "exists: it was removed outside derivative"
        )


def _discard(folder: Path, build_id: str) -> None:
    """Remove an unpublished build's package, pending outcome and temporary files."""
    if not folder.is_dir():
        return
    plan = _read_plan(folder)
    if plan is not None and plan.build_id != build_id:
        return  # another build's files: not this one's to remove
    if plan is not None and plan.package_tmp is not None:
        tmp = Path(plan.package_tmp)
        _unlink(tmp)
        if tmp.parent.is_dir():
            fsync_dir(tmp.parent)
    for name in (OUTCOME_FILE, PENDING_OUTCOME):
        _unlink(folder / name)
    _sweep_temp(folder)
    _unlink(folder / PLAN_FILE)  # last: until now it still names the package to remove
    fsync_dir(folder)


def _sweep_temp(folder: Path) -> None:
    if not folder.is_dir():
        return
    for path in sorted(folder.rglob(".*.tmp")):
        if _TEMP.fullmatch(path.name) and path.is_file():
            _unlink(path)


def _interrupted(begun: BegunBuild) -> LedgerRecord:
    return LedgerRecord(
        build_id=begun.build_id,
        candidate_sha256=None,
        contract_name=begun.contract_name,
        contract_version=begun.contract_version,
        contract_sha256=begun.contract_sha256,
        status="interrupted",
        reason=(
            f"the build's process (pid {begun.mark.pid}) ended before its result was "
            "recorded; nothing was published"
        ),
        started_at=begun.started_at,
        finished_at=utc_now(),
        folder=begun.folder,
        package=None,
        package_sha256=None,
        policy=None,
        enforced=False,
        tool_version=begun.tool_version,
    )
