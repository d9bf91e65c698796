"""The build ledger: one append-only record per build, kept in SQLite.

Why a ledger at all: ``derivative build`` answers "was this exact code ever shown to meet
this exact contract?", and the answer must survive the process, the terminal and a crash.
Why SQLite in WAL mode with ``synchronous=FULL`` for records: a committed record is on disk
when ``record`` returns (the commit point of publishing, see ``_publish``); the journal rows
of builds begun and ended commit with ``NORMAL`` (they survive a killed process, and losing
one to a power cut loses no claim, see ``_write``); readers never block
the one writer, and several ``derivative build`` processes may append at once
(``BEGIN IMMEDIATE`` plus a busy timeout serialises them; none is lost).

Why append-only, enforced by triggers rather than by good manners: a ledger whose rows can be
edited proves nothing about the past. A green result stays true about what it proved; a
later, stronger contract gets its own record, never an edit of the old one.

Three tables, all append-only: ``records`` (one per build, its verdict), ``begun`` (a journal
of builds that started: process id, process start time, boot id, host, the folder lock's
inode) and ``ended`` (builds whose files are final). ``recover`` looks at builds begun and
not ended whose process is gone, and either rolls them forward or records them
``interrupted`` (the folder protocol lives in ``_publish``).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal, get_args

from derivative._errors import DerivativeError, UsageError
from derivative._version import __version__

from ._documents import OutcomeStatus
from ._lease import BuildLease, ProcessMark, current_mark, hold, release_held

LEDGER_FILE = "ledger.sqlite3"
BuildStatus = OutcomeStatus | Literal["interrupted"]
"""A ledger record's status: how the build ended, or ``interrupted`` (found dead)."""
STATUSES: tuple[str, ...] = (*get_args(OutcomeStatus), "interrupted")
AnswerKind = Literal["verified", "verified_older", "never"]

_BUSY_SECONDS = 60.0  # eight builds finishing together wait for each other, never fail
_HEX64 = re.compile(r"[0-9a-f]{64}")


class BuildError(DerivativeError):
    """The build's records or files could not be kept consistent (ledger, disk or tampering)."""


def utc_now() -> str:
    """The current time as UTC ISO 8601 with a ``Z`` (what every ledger time looks like)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def default_state_dir() -> Path:
    """Where the ledger lives unless told: never the current directory.

    ``$DERIVATIVE_STATE`` if set (it must be absolute: a relative one would silently move the
    ledger with the shell's working directory), else ``$XDG_DATA_HOME/derivative`` (a relative
    ``XDG_DATA_HOME`` is ignored, as the XDG specification says), else
    ``~/.local/share/derivative``.
    """
    explicit = os.environ.get("DERIVATIVE_STATE", "")
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_absolute():
            raise UsageError(f"DERIVATIVE_STATE must be an absolute path, not {explicit!r}")
        return path
    xdg = os.environ.get("XDG_DATA_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "derivative"
    return Path.home() / ".local" / "share" / "derivative"


# --------------------------------------------------------------------------- the records


@dataclass(frozen=True, kw_only=True)
class LedgerRecord:
    """What one build established, as it will be kept for ever."""

    build_id: str
    candidate_sha256: str | None
    contract_name: str
    contract_version: int
    contract_sha256: str
    status: BuildStatus
    reason: str
    started_at: str
    finished_at: str
    folder: str
    package: str | None
    package_sha256: str | None
    policy: str | None
    enforced: bool
    tool_version: str

    def __post_init__(self) -> None:
        problem = _record_problem(self)
        if problem:
            raise UsageError(f"ledger record of build {self.build_id!r}: {problem}")


def _record_problem(r: LedgerRecord) -> str | None:
    """Why a record may not enter the ledger, or None (the checks a reader relies on)."""
    if not r.build_id:
        return "an empty build id"
    if r.status not in STATUSES:
        return f"unknown status {r.status!r} (one of {', '.join(STATUSES)})"
    if not isinstance(r.contract_version, int) or r.contract_version < 1:
        return f"contract version must be a positive integer, not {r.contract_version!r}"
    for name in ("contract_sha256", "candidate_sha256", "package_sha256"):
        value = getattr(r, name)
        if value is not None and not _HEX64.fullmatch(value):
            return f"{name} is not a lower-case SHA-256 in hex: {value!r}"
    for name in ("started_at", "finished_at"):
        if not _is_utc(getattr(r, name)):
            return f"{name} must be a UTC ISO 8601 time, not {getattr(r, name)!r}"
    if not Path(r.folder).is_absolute():
        return f"the folder must be an absolute path, not {r.folder!r}"
    if (r.package is None) != (r.package_sha256 is None):
        return "a package and its SHA-256 go together"
    if r.package is not None and r.status != "verified":
        return f"only a verified build has a package (this one is {r.status})"
    if r.package is not None and not Path(r.package).is_absolute():
        return f"the package must be an absolute path, not {r.package!r}"
    return None


def _is_utc(text: str) -> bool:
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return False
    return moment.utcoffset() is not None and moment.utcoffset() == timedelta(0)


_COLUMNS = tuple(f.name for f in fields(LedgerRecord))


def _record_from_row(row: sqlite3.Row) -> LedgerRecord:
    data: dict[str, Any] = {name: row[name] for name in _COLUMNS}
    data["enforced"] = bool(data["enforced"])
    return LedgerRecord(**data)


@dataclass(frozen=True, kw_only=True)
class BegunBuild:
    """A journal entry: a build that started, and how to tell whether its process is gone."""

    build_id: str
    folder: str
    contract_name: str
    contract_version: int
    contract_sha256: str
    mark: ProcessMark
    tool_version: str
    started_at: str


@dataclass(frozen=True)
class LedgerAnswer:
    """What the ledger knows about a candidate and a contract, with the sentence to show."""

    kind: AnswerKind
    sentence: str
    record: LedgerRecord | None = None
    version: int | None = None  # the version the record is about (N for verified_older)


# --------------------------------------------------------------------------- the schema

_STATUS_LIST = ", ".join(f"'{s}'" for s in STATUSES)
_TABLES = f"""
CREATE TABLE IF NOT EXISTS records (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    build_id TEXT NOT NULL UNIQUE,
    candidate_sha256 TEXT,
    contract_name TEXT NOT NULL,
    contract_version INTEGER NOT NULL,
    contract_sha256 TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ({_STATUS_LIST})),
    reason TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    folder TEXT NOT NULL,
    package TEXT,
    package_sha256 TEXT,
    policy TEXT,
    enforced INTEGER NOT NULL CHECK (enforced IN (0, 1)),
    tool_version TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_contract ON records (contract_name, contract_version);
CREATE TABLE IF NOT EXISTS begun (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    build_id TEXT NOT NULL UNIQUE,
    folder TEXT NOT NULL,
    contract_name TEXT NOT NULL,
    contract_version INTEGER NOT NULL,
    contract_sha256 TEXT NOT NULL,
    pid INTEGER NOT NULL,
    proc_start TEXT,
    boot_id TEXT,
    host TEXT NOT NULL,
    lock_dev INTEGER,
    lock_ino INTEGER,
    tool_version TEXT NOT NULL,
    started_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ended (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    build_id TEXT NOT NULL UNIQUE,
    ended_at TEXT NOT NULL
);
"""


def _append_only_triggers() -> str:
    """Triggers that make every table append-only, whoever opens the file.

    UPDATE and DELETE abort. A BEFORE INSERT trigger refuses a second row for a build, which
    also stops ``INSERT OR REPLACE`` (whose implicit delete fires no DELETE trigger).
    """
    parts = []
    for table in ("records", "begun", "ended"):
        for op, verb in (("UPDATE", "updated"), ("DELETE", "deleted")):
            parts.append(
                f"CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: {table} rows are "
                f"never {verb}'); END;"
            )
        parts.append(
            f"CREATE TRIGGER IF NOT EXISTS {table}_one_per_build BEFORE INSERT ON {table} "
            f"WHEN EXISTS (SELECT 1 FROM {table} WHERE build_id = NEW.build_id OR seq = NEW.seq) "
            f"BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: {table} already holds "
            f"this build'); END;"
        )
    return "\n".join(parts)


def _widen_statuses(conn: sqlite3.Connection) -> None:
    """A ledger written before a status word existed (``unknown``) gets the wider check.

    SQLite cannot alter a CHECK constraint, so the ``records`` table is copied into one
    with the current constraint, inside the caller's write transaction: every row and its
    ``seq`` are kept as they were, and the append-only triggers are made again after.
    """
    row = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'records'").fetchone()
    if row is None or all(f"'{s}'" in str(row[0]) for s in STATUSES):
        return
    for op in ("update", "delete"):
        conn.execute(f"DROP TRIGGER IF EXISTS records_no_{op}")
    conn.execute("DROP TRIGGER IF EXISTS records_one_per_build")
    conn.execute("ALTER TABLE records RENAME TO records_before_widening")
    conn.execute(_TABLES.split(";\n")[0])
    conn.execute("INSERT INTO records SELECT * FROM records_before_widening")
    conn.execute("DROP TABLE records_before_widening")


# --------------------------------------------------------------------------- the ledger


class Ledger:
    """The ledger file ``ledger.sqlite3`` in a state folder.

    Each operation opens its own connection and closes it: a ``Ledger`` holds no handle, so
    it may be used from forked processes and threads alike.
    """

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = Path(state_dir).expanduser().resolve()
        self.path = self.state_dir / LEDGER_FILE
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise BuildError(f"cannot create the ledger folder {self.state_dir}: {exc}") from exc
        self._use_wal()
        with self._write() as conn:
            _widen_statuses(conn)
            for statement in (_TABLES + _append_only_triggers()).split(";\n"):
                if statement.strip():
                    conn.execute(statement)

    def _use_wal(self) -> None:
        """Switch the file to WAL (a persistent setting), waiting out a concurrent switch.

        Changing the journal mode needs the file to itself and SQLite may answer "locked"
        without calling the busy handler, so several first builds at once retry a while.
        """
        deadline = time.monotonic() + _BUSY_SECONDS
        while True:
            try:
                with self._connect() as conn:
                    mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                break
            except BuildError as exc:
                busy = "locked" in str(exc.__cause__) or "busy" in str(exc.__cause__)
                if not busy or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        if str(mode).lower() != "wal":
            raise BuildError(f"the ledger at {self.path} cannot use WAL mode (got {mode})")

    # -- connections ------------------------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = sqlite3.connect(self.path, timeout=_BUSY_SECONDS, isolation_level=None)
        except sqlite3.Error as exc:
            raise BuildError(f"cannot open the ledger at {self.path}: {exc}") from exc
        try:
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout={int(_BUSY_SECONDS * 1000)}")
            conn.execute("PRAGMA synchronous=FULL")
            yield conn
        except sqlite3.Error as exc:
            raise BuildError(f"the ledger at {self.path} refused the operation: {exc}") from exc
        finally:
            conn.close()

    @contextmanager
    def _write(self, *, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``) so writers queue.

        ``durable=False`` commits with ``synchronous=NORMAL``: in WAL mode such a commit
        survives the process being killed, but not a power cut. That is enough for the
        journal rows (``begun``, ``ended``): losing one to a power cut loses no claim (no
        record, no ``outcome.json``) and recovery redoes an ``ended`` mark. A record, the
        commit point of publishing, is always ``FULL``.
        """
        with self._connect() as conn:
            if not durable:
                conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:  # SQLite may have rolled back already (a full disk)
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # -- writing ----------------------------------------------------------------------

    def begin(
        self,
        *,
        build_id: str,
        folder: Path,
        contract_name: str,
        contract_version: int,
        contract_sha256: str,
    ) -> BuildLease:
        """Journal a build that starts, and hold its folder's lock for the build's life.

        Earlier builds of the same folder whose process is gone are recovered first, and a
        previous ``outcome.json`` is removed, so the folder only ever speaks for this build.
        The lease is kept by the module until ``publish`` (or ``end``) releases it, so a
        caller that drops the returned object does not let go of the folder by accident; use
        it as a context manager (``with ledger.begin(...):``) so that a build that fails
        before ``publish`` lets go too, and recovery can then record it ``interrupted``.
        A folder held by a live build, and a build id used before, are refused.
        """
        from ._publish import clear_for_new_build, recover_folder

        if self._was_begun(build_id):
            raise UsageError(f"build {build_id!r} was begun before; build ids are unique")
        folder = Path(folder).expanduser().resolve()
        folder.mkdir(parents=True, exist_ok=True)
        lease = BuildLease.try_take(folder, build_id)
        if lease is None:
            raise UsageError(f"{folder} is in use by another build that is still running")
        try:
            recover_folder(self, folder, lease)
            clear_for_new_build(folder)
            self._insert_begun(
                BegunBuild(
                    build_id=build_id,
                    folder=str(folder),
                    contract_name=contract_name,
                    contract_version=contract_version,
                    contract_sha256=contract_sha256,
                    mark=current_mark(lease),
                    tool_version=__version__,
                    started_at=utc_now(),
                )
            )
        except BaseException:
            lease.release()
            raise
        return hold(lease)

    def _was_begun(self, build_id: str) -> bool:
        with self._connect() as conn:
            row = conn.execute("SELECT 1 FROM begun WHERE build_id = ?", (build_id,)).fetchone()
        return row is not None

    def _insert_begun(self, b: BegunBuild) -> None:
        m = b.mark
        with self._write(durable=False) as conn:
            if conn.execute("SELECT 1 FROM begun WHERE build_id = ?", (b.build_id,)).fetchone():
                raise UsageError(f"build {b.build_id!r} was begun before; build ids are unique")
            conn.execute(
                "INSERT INTO begun (build_id, folder, contract_name, contract_version, "
                "contract_sha256, pid, proc_start, boot_id, host, lock_dev, lock_ino, "
                "tool_version, started_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (b.build_id, b.folder, b.contract_name, b.contract_version, b.contract_sha256,
                 m.pid, m.proc_start, m.boot_id, m.host, m.lock_dev, m.lock_ino,
                 b.tool_version, b.started_at),
            )

    def record(self, rec: LedgerRecord) -> None:
        """Append the build's one record in one durable transaction (the commit point)."""
        if not self.append_if_absent(rec):
            raise BuildError(
                f"build {rec.build_id!r} already has its record; records are never replaced"
            )

    def append_if_absent(self, rec: LedgerRecord) -> bool:
        """Append ``rec`` unless its build has a record already; say whether it was appended.

        The check and the insert are one ``BEGIN IMMEDIATE`` transaction, so two recoveries
        of the same dead build append one ``interrupted`` record between them, not two.
        """
        with self._write() as conn:
            found = conn.execute("SELECT 1 FROM records WHERE build_id = ?", (rec.build_id,))
            if found.fetchone():
                return False
            marks = ",".join("?" for _ in _COLUMNS)
            values = tuple(int(v) if isinstance(v, bool) else v for v in astuple(rec))
            conn.execute(f"INSERT INTO records ({','.join(_COLUMNS)}) VALUES ({marks})", values)
        return True

    def end(self, build_id: str) -> None:
        """Mark a build's files final (nothing left to recover) and let go of its folder."""
        with self._write(durable=False) as conn:
            conn.execute(
                "INSERT INTO ended (build_id, ended_at) SELECT ?, ? "
                "WHERE NOT EXISTS (SELECT 1 FROM ended WHERE build_id = ?)",
                (build_id, utc_now(), build_id),
            )
        release_held(build_id)

    def recover(self) -> list[LedgerRecord]:
        """Settle every build that began, did not end and whose process is gone.

        A build whose record was committed is rolled forward (the package renamed into place,
        the ``outcome.json`` the record implies written); one without a record gets an
        ``interrupted`` record and its half-written files are removed. Builds still running,
        and builds of another host, are left alone. Returns the records of the builds settled.
        """
        from ._publish import recover_build

        settled = []
        for begun in self.unended():
            rec = recover_build(self, begun)
            if rec is not None:
                settled.append(rec)
        return settled

    # -- reading ----------------------------------------------------------------------

    def get(self, build_id: str) -> LedgerRecord | None:
        """The record of one build, if it has one."""
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM records WHERE build_id = ?", (build_id,)).fetchone()
        return None if row is None else _record_from_row(row)

    def has_ended(self, build_id: str) -> bool:
        with self._connect() as conn:
            row = conn.execute("SELECT 1 FROM ended WHERE build_id = ?", (build_id,)).fetchone()
        return row is not None

    def unended(self, folder: Path | None = None) -> list[BegunBuild]:
        """Builds begun and not ended (oldest first), optionally only those of one folder."""
        query = (
            "SELECT * FROM begun b WHERE NOT EXISTS "
            "(SELECT 1 FROM ended e WHERE e.build_id = b.build_id)"
        )
        args: tuple[str, ...] = ()
        if folder is not None:
            query += " AND b.folder = ?"
            args = (str(folder),)
        with self._connect() as conn:
            rows = conn.execute(query + " ORDER BY b.seq", args).fetchall()
        return [_begun_from_row(row) for row in rows]

    def log(self, limit: int | None = None, contract_name: str | None = None) -> list[LedgerRecord]:
        """Records, newest first, optionally of one contract and at most ``limit`` of them."""
        if limit is not None and limit < 0:
            raise UsageError(f"a log limit cannot be negative ({limit})")
        query, args = "SELECT * FROM records", list[object]()
        if contract_name is not None:
            query += " WHERE contract_name = ?"
            args.append(contract_name)
        query += " ORDER BY seq DESC"
        if limit is not None:
            query += " LIMIT ?"
            args.append(limit)
        with self._connect() as conn:
            rows = conn.execute(query, args).fetchall()
        return [_record_from_row(row) for row in rows]

    def status(
        self,
        *,
        contract_name: str,
        contract_version: int,
        contract_sha256: str,
        candidate_sha256: str,
    ) -> LedgerAnswer:
        """Was this candidate verified against this contract? (see ``_answer``)."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT * FROM records WHERE contract_name = ? AND candidate_sha256 = ? "
                "ORDER BY seq",
                (contract_name, candidate_sha256),
            ).fetchall()
        records = [_record_from_row(row) for row in rows]
        return _answer(records, contract_name, contract_version, contract_sha256)

    def identity_changed(
        self, contract_name: str, contract_version: int, contract_sha256: str
    ) -> str | None:
        """A warning when this name and version were built before with another identity."""
        with self._connect() as conn:
            row = conn.execute(
                "SELECT * FROM records WHERE contract_name = ? AND contract_version = ? "
                "AND contract_sha256 != ? ORDER BY seq DESC LIMIT 1",
                (contract_name, contract_version, contract_sha256),
            ).fetchone()
        if row is None:
            return None
        old = _record_from_row(row)
        return (
            f"{contract_name} version {contract_version} was built before with identity "
            f"{old.contract_sha256[:12]} (build {old.build_id}, {old.finished_at}); this spec has "
            f"identity {contract_sha256[:12]}: the spec's meaning changed without a version bump"
        )


def _begun_from_row(row: sqlite3.Row) -> BegunBuild:
    return BegunBuild(
        build_id=row["build_id"],
        folder=row["folder"],
        contract_name=row["contract_name"],
        contract_version=row["contract_version"],
        contract_sha256=row["contract_sha256"],
        mark=ProcessMark(
            pid=row["pid"],
            proc_start=row["proc_start"],
            boot_id=row["boot_id"],
            host=row["host"],
            lock_dev=row["lock_dev"],
            lock_ino=row["lock_ino"],
        ),
        tool_version=row["tool_version"],
        started_at=row["started_at"],
    )


# --------------------------------------------------------------------------- the answer


def _answer(
    records: list[LedgerRecord], name: str, version: int, identity: str
) -> LedgerAnswer:
    """Classify a candidate's records against one contract version and identity.

    Only a verified record of this exact version and identity says "verified". A verified
    record of an older version says what it proved and nothing more; one of the same version
    under another identity does not count (the meaning changed without a version bump).
    """
    verified = [r for r in records if r.status == "verified"]
    exact = [r for r in verified if (r.contract_version, r.contract_sha256) == (version, identity)]
    spec = f"{name} version {version} (identity {identity[:12]})"
    if exact:
        best = exact[-1]
        sentence = (
            f"candidate {best.candidate_sha256 or '?'} was verified against {spec} "
            f"by build {best.build_id} on {best.finished_at}."
        )
        return LedgerAnswer("verified", sentence + _contradiction(records, best), best, version)
    older = [r for r in verified if r.contract_version < version]
    if older:
        best = max(older, key=lambda r: r.contract_version)
        n = best.contract_version
        sentence = (
            f"verified only against {name} version {n} (build {best.build_id}, "
            f"{best.finished_at}), never against version {version}: that result stays true "
            f"about what version {n} required and proves nothing about version {version}."
        )
        sentence += _other_identity(verified, version)
        return LedgerAnswer("verified_older", sentence, best, n)
    sentence = f"never verified against {spec}." + _other_identity(verified, version)
    newer = [r for r in verified if r.contract_version > version]
    if newer:
        sentence += (
            f" It was verified against version {newer[-1].contract_version}, which says "
            f"nothing about version {version}."
        )
    return LedgerAnswer("never", sentence, None, None)


def _other_identity(verified: list[LedgerRecord], version: int) -> str:
    same = [r for r in verified if r.contract_version == version]
    if not same:
        return ""
    r = same[-1]
    return (
        f" Build {r.build_id} verified it against version {version} with another identity "
        f"({r.contract_sha256[:12]}): the spec's meaning changed without a version bump, so "
        f"that result does not count."
    )


def _contradiction(records: list[LedgerRecord], best: LedgerRecord) -> str:
    """A later counterexample against the same contract outweighs an earlier pass."""
    key = (best.contract_version, best.contract_sha256)
    later = [
        r
        for r in records[records.index(best) + 1 :]
        if r.status == "validation_failed" and (r.contract_version, r.contract_sha256) == key
    ]
    if not later:
        return ""
    return (
        f" But a later build, {later[-1].build_id} ({later[-1].finished_at}), found it failing "
        f"the same contract: {later[-1].reason}"
    )
