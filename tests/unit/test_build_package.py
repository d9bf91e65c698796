"""The build's package: a hand-written wheel with its evidence, and the verifier that refuses edits.

A package is built from a real contract (``examples/password_policy.req``) and the bundled
candidate, then verified. Each kind of tampering (a candidate byte, a contract field, an
evidence file, a statement digest, a RECORD line, a file added or removed) is applied to a
copy of the archive, once naively (RECORD left as it was) and once by a careful forger who
also rewrites RECORD, and the verifier must refuse both with the reason that names the edit.
The wheel must also install with ``pip install --no-deps --target`` offline and import.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import derivative
from derivative._errors import UsageError
from derivative.forge.build import (
    BuildError,
    in_toto_statement,
    make_package,
    result_predicate,
    verify_package,
    wheel_name,
)
from derivative.forge.build._package import record_digest, record_text

ROOT = Path(__file__).resolve().parents[2]
CANDIDATE = ROOT / "examples" / "candidates" / "password_policy.py"
DIST, VERSION = "password-policy", "3.0"
INFO = "password_policy-3.0.dist-info"
EVIDENCE = f"{INFO}/derivative"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def contract_doc() -> dict[str, Any]:
    loaded = derivative.load(ROOT / "examples" / "password_policy.req")
    return derivative.contract_json(loaded)


def _inputs(contract_doc: dict[str, Any]) -> dict[str, Any]:
    """Everything ``make_package`` takes, for the bundled password-policy candidate."""
    spec = json.dumps(contract_doc, sort_keys=True).encode()
    candidate = {"password_policy.py": CANDIDATE.read_bytes()}
    evidence = {
        "build_spec.json": spec,
        "run.json": b'{"status": "passed"}\n',
        "receipts/sandbox-1.json": b'{"backend": "process"}\n',
    }
    head = contract_doc["spec"]
    ids = [o["id"] for o in contract_doc["obligations"]]
    predicate = result_predicate(
        passed=ids,
        failed=[],
        contract_name=head["name"],
        contract_version=head["version"],
        contract_sha256=head["sha256"],
        spec_sha256=_sha(spec),
        gates={"contract": "feasible", "posture": "accepted", "tests": "passed"},
        outcome="verified",
        evidence={n: _sha(d) for n, d in evidence.items() if n != "build_spec.json"},
        time="2024-01-01T00:00:00Z",
    )
    statement = in_toto_statement(
        subjects={n: _sha(d) for n, d in candidate.items()}, predicate=predicate
    )
    return {
        "dist_name": DIST,
        "version": VERSION,
        "candidate_files": candidate,
        "evidence_files": evidence,
        "statement": statement,
    }


@pytest.fixture()
def wheel(tmp_path: Path, contract_doc: dict[str, Any]) -> Path:
    tmp, sha = make_package(dest_dir=tmp_path, **_inputs(contract_doc))
    final = tmp_path / wheel_name(DIST, VERSION)
    os.replace(tmp, final)
    assert _sha(final.read_bytes()) == sha
    return final


# --------------------------------------------------------------------------- building


def test_package_verifies_and_has_the_wheel_layout(wheel: Path) -> None:
    check = verify_package(wheel)
    assert check.ok, check.details
    assert wheel.name == "password_policy-3.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        record = zf.read(f"{INFO}/RECORD").decode()
        infos = zf.infolist()
    assert names[0] == "password_policy.py"  # the candidate at the root, importable
    assert names[-1] == f"{INFO}/RECORD"
    expected = {"METADATA", "WHEEL", "derivative/build_spec.json", "derivative/run.json",
                "derivative/statement.intoto.json", "derivative/receipts/sandbox-1.json"}
    assert {f"{INFO}/{n}" for n in expected} <= set(names)
    assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in infos)
    line = next(r for r in csv.reader(io.StringIO(record)) if r[0] == "password_policy.py")
    assert line[1] == record_digest(CANDIDATE.read_bytes())
    assert line[1].startswith("sha256=") and "=" not in line[1][7:]  # urlsafe, no padding
    assert f"{INFO}/RECORD,," in record.splitlines()


def test_package_bytes_are_deterministic(tmp_path: Path, contract_doc: dict[str, Any]) -> None:
    first, sha1 = make_package(dest_dir=tmp_path / "a", **_inputs(contract_doc))
    second, sha2 = make_package(dest_dir=tmp_path / "b", **_inputs(contract_doc))
    assert sha1 == sha2 and first.read_bytes() == second.read_bytes()
    assert first.name.startswith(".password_policy-3.0-py3-none-any.whl.")  # a temporary name


def test_statement_is_in_toto_v1_with_a_test_result_predicate(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        statement = json.loads(zf.read(f"{EVIDENCE}/statement.intoto.json"))
        spec = zf.read(f"{EVIDENCE}/build_spec.json")
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicateType"] == "https://in-toto.io/attestation/test-result/v0.1"
    assert statement["subject"] == [
        {"name": "password_policy.py", "digest": {"sha256": _sha(CANDIDATE.read_bytes())}}
    ]
    predicate = statement["predicate"]
    assert predicate["result"] == "PASSED" and predicate["failedTests"] == []
    assert predicate["passedTests"] == sorted(predicate["passedTests"]) and predicate["passedTests"]
    config = {c["name"]: c for c in predicate["configuration"]}
    assert config["build_spec.json"]["digest"] == {"sha256": _sha(spec)}
    assert config["derivative"]["uri"] == f"pkg:pypi/derivative@{derivative.__version__}"
    ext = predicate["derivative"]
    assert ext["contract"]["name"] == "password_policy" and ext["contract"]["version"] == 3
    assert ext["outcome"] == "verified" and ext["gates"]["posture"] == "accepted"
    assert set(ext["evidence"]) == {"run.json", "receipts/sandbox-1.json"}


def test_a_failed_result_is_failed() -> None:
    predicate = result_predicate(
        passed=["a"], failed=["b"], contract_name="c", contract_version=1,
        contract_sha256="0" * 64, spec_sha256="1" * 64, gates={}, outcome="validation_failed",
        evidence={},
    )
    assert predicate["result"] == "FAILED" and predicate["failedTests"] == ["b"]


def test_make_package_refuses_bad_input(tmp_path: Path, contract_doc: dict[str, Any]) -> None:
    good = _inputs(contract_doc)
    bad: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"dist_name": "no spaces"}, UsageError, "distribution name"),
        ({"version": "v1"}, UsageError, "normalised version"),
        ({"candidate_files": {"../evil.py": b""}}, UsageError, "cannot sit"),
        ({"candidate_files": {"x.dist-info/RECORD": b""}}, UsageError, "cannot sit"),
        ({"evidence_files": {"run.json": b"{}"}}, UsageError, "build_spec.json"),
        # the statement does not describe these files: the package would not verify
        ({"candidate_files": {"password_policy.py": b"pass\n"}}, BuildError, "code was edited"),
        ({"candidate_files": {**good["candidate_files"], "extra.py": b""}}, BuildError, "added"),
    ]
    for change, error, words in bad:
        with pytest.raises(error, match=words):
            make_package(dest_dir=tmp_path, **{**good, **change})
    assert not list(tmp_path.iterdir()), "nothing is written for refused input"


def test_statement_refuses_a_foreign_predicate() -> None:
    with pytest.raises(UsageError, match="result must be one of"):
        in_toto_statement(subjects={"m.py": "0" * 64}, predicate={"result": "OK"})
    with pytest.raises(UsageError, match="SHA-256"):
        in_toto_statement(subjects={"m.py": "xyz"}, predicate={})


# --------------------------------------------------------------------------- tampering


def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _rezip(path: Path, files: dict[str, bytes], *, fix_record: bool) -> None:
    """Write ``files`` back as the wheel; a careful forger also rewrites RECORD."""
    files = dict(files)
    if fix_record:
        files.pop(f"{INFO}/RECORD")
        files[f"{INFO}/RECORD"] = record_text(files, f"{INFO}/RECORD")
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)


def _edit_json(files: dict[str, bytes], name: str, change: Callable[[Any], None]) -> None:
    doc = json.loads(files[name])
    change(doc)
    files[name] = json.dumps(doc).encode()


def _candidate_byte(f: dict[str, bytes]) -> None:
    f["password_policy.py"] = f["password_policy.py"].replace(b"return", b"return ", 1)


def _contract_field(f: dict[str, bytes]) -> None:
    _edit_json(f, f"{EVIDENCE}/build_spec.json",
               lambda d: d["obligations"][0].update(expr="true"))


def _contract_identity(f: dict[str, bytes]) -> None:
    _edit_json(f, f"{EVIDENCE}/build_spec.json", lambda d: d["spec"].update(sha256="0" * 64))


def _evidence_file(f: dict[str, bytes]) -> None:
    f[f"{EVIDENCE}/run.json"] = b'{"status": "failed"}\n'


def _subject_digest(f: dict[str, bytes]) -> None:
    _edit_json(f, f"{EVIDENCE}/statement.intoto.json",
               lambda d: d["subject"][0]["digest"].update(sha256="0" * 64))


def _record_line(f: dict[str, bytes]) -> None:
    lines = f[f"{INFO}/RECORD"].decode().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("password_policy.py,"))
    name, _, size = lines[at].split(",")
    lines[at] = f"{name},{record_digest(b'other')},{size}"
    f[f"{INFO}/RECORD"] = ("\n".join(lines) + "\n").encode()


def _added_file(f: dict[str, bytes]) -> None:
    f["sitecustomize.py"] = b"import os\n"


def _added_evidence(f: dict[str, bytes]) -> None:
    f[f"{EVIDENCE}/extra.json"] = b"{}"


def _removed_file(f: dict[str, bytes]) -> None:
    del f[f"{EVIDENCE}/run.json"]


def _removed_candidate(f: dict[str, bytes]) -> None:
    del f["password_policy.py"]


# (edit, reason when RECORD is left alone, reason when the forger rewrites RECORD too)
TAMPERING = {
    "candidate byte": (_candidate_byte, "password_policy.py does not match its RECORD digest",
                       "candidate file password_policy.py does not match the statement's digest"),
    "contract field": (_contract_field, "build_spec.json does not match its RECORD digest",
                       "build_spec.json does not match the digest the statement's configuration"),
    "contract identity": (_contract_identity, "build_spec.json does not match its RECORD",
                          "build_spec.json does not match the digest the statement's config"),
    "evidence file": (_evidence_file, "run.json does not match its RECORD digest",
                      "evidence file run.json does not match the statement's digest"),
    "statement subject": (_subject_digest, "statement.intoto.json does not match its RECORD",
                          "candidate file password_policy.py does not match the statement's"),
    "RECORD line": (_record_line, "password_policy.py does not match its RECORD digest", None),
    "added file": (_added_file, "sitecustomize.py is in the package but not in RECORD (added)",
                   "candidate file sitecustomize.py is not a subject of the statement (added)"),
    "added evidence": (_added_evidence, "extra.json is in the package but not in RECORD",
                       "evidence file extra.json is not named by the statement (added)"),
    "removed file": (_removed_file, "RECORD names " + EVIDENCE + "/run.json, which the package",
                     "the statement names evidence run.json, not in the package (removed)"),
    "removed candidate": (_removed_candidate, "RECORD names password_policy.py, which the",
                          "the statement's subject password_policy.py is not in the package"),
}


CASES = [
    pytest.param(kind, fix, reason, id=f"{kind}-{'RECORD rewritten' if fix else 'naive'}")
    for kind, (_, naive, forged) in sorted(TAMPERING.items())
    for fix, reason in ((False, naive), (True, forged))
    if reason is not None  # rewriting RECORD undoes an edit of RECORD itself
]


@pytest.mark.parametrize(("kind", "fix_record", "reason"), CASES)
def test_tampered_package_is_refused_with_its_reason(
    wheel: Path, kind: str, fix_record: bool, reason: str
) -> None:
    edit = TAMPERING[kind][0]
    files = _entries(wheel)
    edit(files)
    _rezip(wheel, files, fix_record=fix_record)
    check = verify_package(wheel)
    assert not check.ok
    assert reason in check.reason, check.details
    assert check.reason == check.details[0]


def test_a_forger_who_fixes_every_digest_is_still_caught_by_the_identity(wheel: Path) -> None:
    files = _entries(wheel)
    _contract_identity(files)
    spec = files[f"{EVIDENCE}/build_spec.json"]

    def fix(d: Any) -> None:
        d["predicate"]["configuration"][0]["digest"]["sha256"] = _sha(spec)

    _edit_json(files, f"{EVIDENCE}/statement.intoto.json", fix)
    _rezip(wheel, files, fix_record=True)
    check = verify_package(wheel)
    assert not check.ok and "the contract's identity differs" in check.reason, check.details


def test_a_package_that_says_failed_is_refused(wheel: Path) -> None:
    files = _entries(wheel)
    _edit_json(files, f"{EVIDENCE}/statement.intoto.json",
               lambda d: d["predicate"].update(result="FAILED"))
    _rezip(wheel, files, fix_record=True)
    assert "the statement says the candidate failed" in verify_package(wheel).reason


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"not a zip", "not a readable wheel"),
        (None, "cannot read"),
    ],
)
def test_unreadable_package_is_refused(tmp_path: Path, content: bytes | None, reason: str) -> None:
    path = tmp_path / "x-1.0-py3-none-any.whl"
    if content is not None:
        path.write_bytes(content)
    check = verify_package(path)
    assert not check.ok and check.reason.startswith(reason)


def test_duplicate_entries_are_refused(wheel: Path) -> None:
    files = _entries(wheel)
    with pytest.warns(UserWarning), zipfile.ZipFile(wheel, "a") as zf:
        zf.writestr("password_policy.py", files["password_policy.py"] + b"\n# shadow\n")
    assert "more than once" in verify_package(wheel).reason


def test_metadata_must_name_the_package(wheel: Path) -> None:
    files = _entries(wheel)
    files[f"{INFO}/METADATA"] = files[f"{INFO}/METADATA"].replace(b"Name: password-policy",
                                                                  b"Name: requests")
    _rezip(wheel, files, fix_record=True)
    assert "METADATA names requests-3.0, not the package's" in verify_package(wheel).reason


def test_renamed_wheel_must_match_its_metadata(wheel: Path) -> None:
    other = wheel.with_name("other-3.0-py3-none-any.whl")
    os.replace(wheel, other)
    assert "does not match its metadata folder" in verify_package(other).reason


# --------------------------------------------------------------------------- installing


@pytest.mark.slow
def test_wheel_installs_offline_and_imports(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INDEX": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target",
         str(target), str(wheel)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (target / "password_policy.py").read_bytes() == CANDIDATE.read_bytes()
    assert (target / EVIDENCE / "statement.intoto.json").is_file()
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import password_policy as m; "
        "print(m.__file__)"
    )
    ran = subprocess.run(
        [sys.executable, "-I", "-c", probe, str(target)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == str(target / "password_policy.py")
