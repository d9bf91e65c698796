"""The package: an installable wheel that carries the candidate and the evidence that admitted it.

Why a wheel written by hand: the candidate is untrusted code, so nothing of it may run to
package it (no ``setup.py``, no build backend); a wheel is a zip with three small text files,
and writing it ourselves keeps the bytes deterministic (fixed timestamps and permissions,
sorted entries, stored rather than deflated so the bytes do not depend on the zlib build), so
the same candidate and evidence always give the same SHA-256.

Layout: the candidate files at the wheel root (``pip install`` makes them importable), and
``NAME-VERSION.dist-info/`` with ``METADATA``, ``WHEEL``, ``RECORD`` (every file's urlsafe
base64 SHA-256 and size, as the wheel specification says) and ``derivative/``: the frozen
contract ``build_spec.json``, the evidence files, and ``statement.intoto.json``, an in-toto
Statement v1 with the test-result predicate whose subjects are the candidate files.

``verify_package`` re-checks all of it from the bytes alone and refuses, with the reason, a
package whose code, contract or evidence was edited, added or removed afterwards. It checks
consistency, not authorship: the statement is not signed, so whoever rewrites every digest
consistently can forge a package; signing is a separate, later step.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from derivative._canon import canonical_json, sha256_hex
from derivative._errors import UsageError
from derivative._version import __version__

from ._ledger import BuildError
from ._publish import temp_path

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1"
SPEC_FILE = "build_spec.json"
STATEMENT_FILE = "statement.intoto.json"
EVIDENCE_DIR = "derivative"
RESULTS = ("PASSED", "WARNED", "FAILED")

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip can hold: no clock in the bytes
_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
_VERSION = re.compile(
    r"[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?(\+[a-z0-9]+(\.[a-z0-9]+)*)?"
)
_WHEEL_FILE = re.compile(r"(?P<name>[^-]+)-(?P<version>[^-]+)-py3-none-any\.whl")
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class PackageCheck:
    """The verdict on a package: ``reason`` is the first problem, ``details`` all of them."""

    ok: bool
    reason: str
    details: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- names


def _escaped(dist_name: str) -> str:
    return re.sub(r"[-_.]+", "_", dist_name).lower()


def wheel_name(dist_name: str, version: str) -> str:
    """The wheel's file name, ``{dist}-{version}-py3-none-any.whl`` (name escaped)."""
    _check_name_and_version(dist_name, version)
    return f"{_escaped(dist_name)}-{version}-py3-none-any.whl"


def dist_info(dist_name: str, version: str) -> str:
    """The wheel's ``.dist-info`` folder name."""
    return f"{_escaped(dist_name)}-{version}.dist-info"


def _check_name_and_version(dist_name: str, version: str) -> None:
    if not _NAME.fullmatch(dist_name):
        raise UsageError(f"{dist_name!r} is not a valid distribution name")
    if not _VERSION.fullmatch(version):
        raise UsageError(f"{version!r} is not a normalised version (like 1.0, 2.1rc1, 3.0.post1)")


def _safe_relative(name: str) -> bool:
    """A plain relative POSIX path with no ``..``, empty or absolute parts."""
    if not name or "\\" in name or name.startswith("/") or name.endswith("/"):
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


# --------------------------------------------------------------------------- the statement


def result_predicate(
    *,
    passed: Sequence[str],
    failed: Sequence[str],
    contract_name: str,
    contract_version: int,
    contract_sha256: str,
    spec_sha256: str,
    gates: Mapping[str, Any],
    outcome: str,
    evidence: Mapping[str, str],
    tool_version: str = __version__,
    time: str | None = None,
) -> dict[str, Any]:
    """A test-result predicate (in-toto ``test-result/v0.1``) for one build.

    ``passedTests``/``failedTests`` are obligation ids; ``configuration`` names the frozen
    contract (``build_spec.json`` with its SHA-256) and the tool as resource descriptors; the
    ``derivative`` object carries what the vocabulary has no field for: the contract's name,
    version and identity, the gates, the outcome, the evidence files' SHA-256, the tool's
    version and the time.
    """
    when = time or datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    contract = {"name": contract_name, "version": contract_version, "identity": contract_sha256}
    return {
        "result": "FAILED" if failed or outcome != "verified" else "PASSED",
        "configuration": [
            {
                "name": SPEC_FILE,
                "digest": {"sha256": spec_sha256},
                "mediaType": "application/json",
                "annotations": dict(contract),
            },
            {"name": "derivative", "uri": f"pkg:pypi/derivative@{tool_version}"},
        ],
        "passedTests": sorted(passed),
        "failedTests": sorted(failed),
        "derivative": {
            "contract": contract,
            "gates": dict(gates),
            "outcome": outcome,
            "evidence": dict(sorted(evidence.items())),
            "tool_version": tool_version,
            "time": when,
        },
    }


def in_toto_statement(*, subjects: dict[str, str], predicate: dict[str, Any]) -> dict[str, Any]:
    """An in-toto Statement v1 about the candidate files (name -> SHA-256 in hex).

    The predicate must speak the test-result vocabulary (``result``, ``configuration``) and
    carry the ``derivative`` object that ``result_predicate`` writes.
    """
    if not subjects:
        raise UsageError("a statement needs at least one subject")
    for name, digest in subjects.items():
        if not _safe_relative(name) or not _HEX64.fullmatch(digest):
            raise UsageError(f"subject {name!r}: a relative path and a SHA-256 in hex")
    problems = _predicate_problems(predicate)
    if problems:
        raise UsageError("the predicate is not a derivative test result: " + "; ".join(problems))
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": n, "digest": {"sha256": subjects[n]}} for n in sorted(subjects)],
        "predicateType": PREDICATE_TYPE,
        "predicate": predicate,
    }


def _predicate_problems(predicate: Any) -> list[str]:
    if not isinstance(predicate, dict):
        return ["the predicate is not an object"]
    problems = []
    if predicate.get("result") not in RESULTS:
        problems.append(f"result must be one of {', '.join(RESULTS)}")
    if not isinstance(predicate.get("configuration"), list):
        problems.append("configuration must be a list of resource descriptors")
    ext = predicate.get("derivative")
    contract = ext.get("contract") if isinstance(ext, dict) else None
    if not isinstance(contract, dict) or not {"name", "version", "identity"} <= set(contract):
        problems.append("derivative.contract must give the name, version and identity")
    if not isinstance(ext, dict) or not isinstance(ext.get("evidence"), dict):
        problems.append("derivative.evidence must map evidence files to their SHA-256")
    return problems


# --------------------------------------------------------------------------- writing


def make_package(
    *,
    dest_dir: Path,
    dist_name: str,
    version: str,
    candidate_files: dict[str, bytes],
    evidence_files: dict[str, bytes],
    statement: dict[str, Any],
) -> tuple[Path, str]:
    """Write the wheel under a temporary name in ``dest_dir``; return (path, SHA-256).

    ``evidence_files`` must include ``build_spec.json``; the statement is stored as
    ``statement.intoto.json``. The bytes are checked with the same rules as
    ``verify_package`` before they are written: a package that would be refused is never
    made. The caller publishes the file (``publish`` renames it to ``wheel_name(...)``).
    """
    final = Path(dest_dir) / wheel_name(dist_name, version)
    info = dist_info(dist_name, version)
    files = _payload(info, dist_name, version, candidate_files, evidence_files, statement)
    data = _zip(files, info)
    check = _check_bytes(data, final.name)
    if not check.ok:
        raise BuildError(f"the package would not verify: {check.reason}")
    tmp = temp_path(final)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise BuildError(f"cannot write the package in {final.parent}: {exc}") from exc
    return tmp, sha256_hex(data)


def _payload(
    info: str,
    dist_name: str,
    version: str,
    candidate_files: dict[str, bytes],
    evidence_files: dict[str, bytes],
    statement: dict[str, Any],
) -> dict[str, bytes]:
    """Every file of the wheel but RECORD, by archive name."""
    if not candidate_files:
        raise UsageError("a package needs at least one candidate file")
    if SPEC_FILE not in evidence_files:
        raise UsageError(f"the evidence must include the frozen contract {SPEC_FILE}")
    for name in candidate_files:
        top = name.split("/")[0]
        if not _safe_relative(name) or top.endswith((".dist-info", ".data")):
            raise UsageError(f"candidate file {name!r} cannot sit at that place in a wheel")
    for name in evidence_files:
        if not _safe_relative(name) or name == STATEMENT_FILE:
            raise UsageError(f"evidence file {name!r}: a relative path other than {STATEMENT_FILE}")
    try:
        canonical_json(statement)  # JSON-safe, and no floats: reals travel as exact strings
    except (TypeError, ValueError) as exc:
        raise UsageError(f"the statement is not plain JSON: {exc}") from exc
    files = dict(candidate_files)
    files[f"{info}/METADATA"] = _metadata(dist_name, version, statement)
    files[f"{info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: derivative {__version__}\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode()
    for name, data in evidence_files.items():
        files[f"{info}/{EVIDENCE_DIR}/{name}"] = data
    text = json.dumps(statement, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    files[f"{info}/{EVIDENCE_DIR}/{STATEMENT_FILE}"] = text.encode()
    return files


def _metadata(dist_name: str, version: str, statement: dict[str, Any]) -> bytes:
    contract = statement.get("predicate", {}).get("derivative", {}).get("contract", {})
    summary = "a candidate packaged by derivative with the evidence that admitted it"
    if isinstance(contract, dict) and "name" in contract and "version" in contract:
        summary = (
            f"verified by derivative against {contract['name']} version {contract['version']}"
        )
    return (
        f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\nSummary: {summary}\n"
    ).encode()


def record_digest(data: bytes) -> str:
    """A RECORD hash: ``sha256=`` and the urlsafe base64 digest without padding."""
    raw = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={raw}"


def record_text(files: Mapping[str, bytes], record_name: str) -> bytes:
    """RECORD for ``files`` (every file but RECORD itself, whose line has no hash)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for name in sorted(files):
        writer.writerow([name, record_digest(files[name]), len(files[name])])
    writer.writerow([record_name, "", ""])
    return out.getvalue().encode()


def _zip(files: Mapping[str, bytes], info: str) -> bytes:
    """The archive: root files sorted, then the dist-info sorted, RECORD last."""
    record_name = f"{info}/RECORD"
    everything = dict(files)
    everything[record_name] = record_text(files, record_name)
    order = sorted(everything, key=lambda n: (n.startswith(f"{info}/"), n == record_name, n))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as zf:
        for name in order:
            entry = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            entry.create_system = 3  # unix, so the permission bits below mean what they say
            entry.external_attr = 0o100644 << 16
            entry.compress_type = zipfile.ZIP_STORED
            zf.writestr(entry, everything[name])
    return buffer.getvalue()


# --------------------------------------------------------------------------- verifying


def verify_package(path: Path) -> PackageCheck:
    """Re-check a package from its bytes: RECORD, the statement's subjects, the evidence
    digests and the contract's identity; any edit, addition or removal is refused."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return PackageCheck(False, f"cannot read {path}: {exc}", [str(exc)])
    return _check_bytes(data, Path(path).name)


def _check_bytes(data: bytes, filename: str) -> PackageCheck:
    try:
        archive = _read_archive(data, filename)
    except _Refused as exc:
        return PackageCheck(False, str(exc), [str(exc)])
    problems = _record_problems(archive)
    problems += _statement_problems(archive)
    if problems:
        return PackageCheck(False, problems[0], problems)
    return PackageCheck(True, "every file matches RECORD, the statement and the contract", [])


class _Refused(Exception):
    """A package too broken to look further into."""


@dataclass(frozen=True)
class _Archive:
    info: str
    files: dict[str, bytes]

    @property
    def evidence_prefix(self) -> str:
        return f"{self.info}/{EVIDENCE_DIR}/"


def _read_archive(data: bytes, filename: str) -> _Archive:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = [i.filename for i in zf.infolist()]
            files = {name: zf.read(name) for name in names}
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError) as exc:
        raise _Refused(f"not a readable wheel: {exc}") from exc
    if len(names) != len(files):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise _Refused(f"the archive holds {', '.join(dupes)} more than once")
    unsafe = [n for n in names if not _safe_relative(n)]
    if unsafe:
        raise _Refused(f"the archive holds unsafe paths: {', '.join(unsafe)}")
    infos = sorted({n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")})
    if len(infos) != 1:
        raise _Refused(f"a wheel has exactly one .dist-info folder, this one has {len(infos)}")
    info = infos[0]
    match = _WHEEL_FILE.fullmatch(filename)
    if match and f"{match['name']}-{match['version']}.dist-info" != info:
        raise _Refused(f"the file name {filename} does not match its metadata folder {info}")
    for needed in ("METADATA", "WHEEL", "RECORD"):
        if f"{info}/{needed}" not in files:
            raise _Refused(f"{info}/{needed} is missing (removed)")
    _check_metadata(info, files[f"{info}/METADATA"])
    return _Archive(info=info, files=files)


def _check_metadata(info: str, metadata: bytes) -> None:
    """METADATA's name and version must be the ones the dist-info folder is named after."""
    fields = dict(
        line.split(": ", 1)
        for line in metadata.decode("utf-8", errors="replace").splitlines()
        if ": " in line
    )
    named = f"{_escaped(fields.get('Name', ''))}-{fields.get('Version', '')}.dist-info"
    if named != info:
        raise _Refused(f"METADATA names {named[: -len('.dist-info')]}, not the package's "
                       f"{info[: -len('.dist-info')]} (edited)")


def _parse_record(archive: _Archive) -> dict[str, tuple[str, str]]:
    record_name = f"{archive.info}/RECORD"
    try:
        rows = list(csv.reader(io.StringIO(archive.files[record_name].decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise _Refused(f"RECORD is not readable CSV: {exc}") from exc
    entries: dict[str, tuple[str, str]] = {}
    for row in rows:
        if len(row) != 3:
            raise _Refused(f"RECORD line {','.join(row)!r} does not have three fields (edited)")
        if row[0] in entries:
            raise _Refused(f"RECORD names {row[0]} twice (edited)")
        entries[row[0]] = (row[1], row[2])
    if entries.pop(record_name, None) is None:
        raise _Refused("RECORD does not name itself (edited)")
    return entries


def _record_problems(archive: _Archive) -> list[str]:
    """Every file against RECORD: a digest or size that differs, a file RECORD lacks, a
    file RECORD names that is not there."""
    try:
        entries = _parse_record(archive)
    except _Refused as exc:
        return [str(exc)]
    problems = []
    files = {n: d for n, d in archive.files.items() if n != f"{archive.info}/RECORD"}
    for name in sorted(entries):
        if name not in files:
            problems.append(f"RECORD names {name}, which the package does not hold (removed)")
            continue
        digest, size = entries[name]
        if digest != record_digest(files[name]) or size != str(len(files[name])):
            problems.append(f"{name} does not match its RECORD digest (edited)")
    for name in sorted(set(files) - set(entries)):
        problems.append(f"{name} is in the package but not in RECORD (added)")
    return problems


def _load_json(archive: _Archive, name: str) -> Any:
    data = archive.files.get(archive.evidence_prefix + name)
    if data is None:
        raise _Refused(f"{name} is missing (removed)")
    try:
        return json.loads(data)
    except ValueError as exc:
        raise _Refused(f"{name} is not JSON (edited): {exc}") from exc


def _statement_problems(archive: _Archive) -> list[str]:
    """The statement against the candidate files, the evidence and the frozen contract."""
    try:
        statement = _load_json(archive, STATEMENT_FILE)
        spec = _load_json(archive, SPEC_FILE)
    except _Refused as exc:
        return [str(exc)]
    if not isinstance(statement, dict) or statement.get("_type") != STATEMENT_TYPE:
        return [f"{STATEMENT_FILE} is not an in-toto Statement v1 (edited)"]
    if statement.get("predicateType") != PREDICATE_TYPE:
        return [f"{STATEMENT_FILE} does not carry a test-result predicate (edited)"]
    predicate = statement.get("predicate")
    shape = _predicate_problems(predicate)
    if shape:
        return [f"{STATEMENT_FILE}: {p} (edited)" for p in shape]
    assert isinstance(predicate, dict)
    problems = _subject_problems(archive, statement.get("subject"))
    problems += _verdict_problems(predicate)
    problems += _evidence_problems(archive, predicate["derivative"]["evidence"])
    problems += _spec_problems(archive, spec, predicate)
    problems += _claims_problems(archive, predicate)
    return problems


VALIDATION_FILE = "validation_artifact.json"


def _claims_problems(archive: _Archive, predicate: dict[str, Any]) -> list[str]:
    """What the statement claims (passed and failed obligations, gates) against the
    validation artifact it carries, when it carries one: a statement whose claims were
    rewritten to say more than the evidence shows is refused."""
    if archive.evidence_prefix + VALIDATION_FILE not in archive.files:
        return []
    try:
        artifact = _load_json(archive, VALIDATION_FILE)
        best = artifact["best_attempt"]
        attempt = next(a for a in artifact["attempts"] if a["attempt"] == best)
        validation = attempt["validation"]
        passed, failed = sorted(validation["passing"]), sorted(validation["failing"])
        gates = {g["gate"]: {"status": g["status"], "detail": g["detail"]}
                 for g in attempt["gates"]}
    except (_Refused, KeyError, TypeError, StopIteration) as exc:
        return [f"{VALIDATION_FILE} cannot be read as a validation artifact: {exc} (edited)"]
    problems = []
    if artifact.get("status") != "verified":
        problems.append(f"{VALIDATION_FILE} says {artifact.get('status')!r}, not verified")
    if predicate.get("passedTests") != passed or predicate.get("failedTests") != failed:
        problems.append("the statement's passed and failed obligations are not the ones the "
                        "validation artifact records (edited)")
    if predicate["derivative"].get("gates") != gates:
        problems.append("the statement's gates are not the ones the validation artifact "
                        "records (edited)")
    return problems


def _subject_problems(archive: _Archive, subjects: Any) -> list[str]:
    named: dict[str, str] = {}
    for subject in subjects if isinstance(subjects, list) else []:
        try:
            named[subject["name"]] = subject["digest"]["sha256"]
        except (KeyError, TypeError):
            return [f"{STATEMENT_FILE} has a malformed subject (edited)"]
    if not named:
        return [f"{STATEMENT_FILE} names no subject (edited)"]
    code = {n: d for n, d in archive.files.items() if not n.startswith(f"{archive.info}/")}
    problems = []
    for name in sorted(set(code) | set(named)):
        if name not in named:
            problems.append(f"candidate file {name} is not a subject of the statement (added)")
        elif name not in code:
            problems.append(f"the statement's subject {name} is not in the package (removed)")
        elif sha256_hex(code[name]) != named[name]:
            problems.append(f"candidate file {name} does not match the statement's digest "
                            "(the code was edited)")
    return problems


def _verdict_problems(predicate: dict[str, Any]) -> list[str]:
    ext = predicate["derivative"]
    if predicate["result"] == "FAILED" or predicate.get("failedTests"):
        return ["the statement says the candidate failed: such a package must not exist"]
    if ext.get("outcome") != "verified":
        return [f"the statement's outcome is {ext.get('outcome')!r}, not verified"]
    return []


def _evidence_problems(archive: _Archive, evidence: dict[str, Any]) -> list[str]:
    prefix = archive.evidence_prefix
    held = {
        n[len(prefix) :]: d
        for n, d in archive.files.items()
        if n.startswith(prefix) and n[len(prefix) :] not in (STATEMENT_FILE, SPEC_FILE)
    }
    problems = []
    for name in sorted(set(held) | set(evidence)):
        if name not in evidence:
            problems.append(f"evidence file {name} is not named by the statement (added)")
        elif name not in held:
            problems.append(f"the statement names evidence {name}, not in the package (removed)")
        elif sha256_hex(held[name]) != evidence[name]:
            problems.append(f"evidence file {name} does not match the statement's digest (edited)")
    return problems


def _spec_problems(archive: _Archive, spec: Any, predicate: dict[str, Any]) -> list[str]:
    """The frozen contract: its bytes as configured, its identity as the statement says."""
    data = archive.files[archive.evidence_prefix + SPEC_FILE]
    configured = [
        c for c in predicate["configuration"] if isinstance(c, dict) and c.get("name") == SPEC_FILE
    ]
    problems = []
    digest = configured[0].get("digest", {}) if configured else {}
    if not isinstance(digest, dict) or digest.get("sha256") != sha256_hex(data):
        problems.append(f"{SPEC_FILE} does not match the digest the statement's configuration "
                        "names (the contract was edited)")
    head = spec.get("spec") if isinstance(spec, dict) else None
    claimed = predicate["derivative"]["contract"]
    frozen = None
    if isinstance(head, dict):
        frozen = {"name": head.get("name"), "version": head.get("version"),
                  "identity": head.get("sha256")}
    if frozen != {k: claimed[k] for k in ("name", "version", "identity")}:
        problems.append(f"{SPEC_FILE}'s contract {frozen} is not the statement's {claimed} "
                        "(the contract's identity differs)")
    return problems
