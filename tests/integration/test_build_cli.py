"""``derivative build``, ``package verify`` and ``ledger`` as a user runs them: through ``main``.

Every build here is real (the solver, the posture validator, the process or Docker sandbox,
the engine, the package, the SQLite ledger in a temporary state folder) and is driven by
``derivative.cli.main(argv, stdout=..., stderr=...)`` with the arguments a user would type,
from the repository's root. What is checked is what a user or a script reads: the exit code,
the ``--json`` document (validated against the published schema) or the text, the build
folder, the ledger's answers and the ``--events`` audit lines. Nothing is mocked except,
for ``sandbox_unavailable`` on the process backend, a launcher that refuses to start (on
Docker, an image tag that does not exist does it for real).
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import derivative
from derivative import _audit, api
from derivative.cli import main
from derivative.forge.build import BuildOptions, Ledger, verify_package
from derivative.forge.run import RunOptions

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "derivative" / "schemas" / "derivative.outcome.v1.schema.json")
                    .read_text(encoding="utf-8"))
NO_IMAGE = "derivative-sandbox:no-such-tag"

pytestmark = pytest.mark.slow

Run = tuple[int, str, str]


class _Terminal(io.StringIO):
    """A stream that says it is a terminal (where progress is drawn)."""

    def isatty(self) -> bool:
        return True


def cli(*argv: str | Path, stderr: io.StringIO | None = None) -> Run:
    out, err = io.StringIO(), stderr if stderr is not None else io.StringIO()
    code = main([str(a) for a in argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def _in_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # Example paths are given relative to the repository, as a user would type them.
    monkeypatch.chdir(ROOT)


@pytest.fixture(params=["process", "docker"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "docker":
        request.getfixturevalue("docker_launcher")  # skips (fails under CI=true) without it
    return str(request.param)


def _outcome(stdout: str, folder: Path) -> dict[str, Any]:
    """The ``--json`` document: valid against the schema and the folder's outcome.json."""
    doc: dict[str, Any] = json.loads(stdout)
    jsonschema.validate(doc, SCHEMA)
    assert json.loads((folder / "outcome.json").read_text(encoding="utf-8")) == doc
    for name, digest in doc["evidence"].items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
    return doc


# --------------------------------------------------------------------------- every status

POLICY_VIOLATION = '''\
def discounted(price_cents, percent):
    open("/etc/passwd").read()
    return price_cents - price_cents * percent // 100
'''

UNREACHABLE_SPEC = """\
spec sumlist version 1
function total(arr: list[int]) -> int
    requires R1: len(arr) <= 1000000
    requires R2: forall i in 0..len(arr) - 1: -1000 <= arr[i] <= 1000
    ensures E1: result == sum(arr)
"""
"""A boundary (a million elements) no solver builds in its limit and no built input may
carry (docs/decisions.md, "Targets the tool cannot reach"): the tool's limit, ``unknown``."""

# name -> (spec name, build arguments, status, exit code)
CASES: dict[str, tuple[str, tuple[str, ...], str, int]] = {
    "synth": ("discount", ("examples/discount.req", "--synth"), "verified", 0),
    "good": ("contract_expiry", ("examples/contracts/expiry.req", "--candidate",
                                 "examples/contracts/good", "--module", "contract_expiry"),
             "verified", 0),
    "wrong": ("contract_expiry", ("examples/contracts/expiry.req", "--candidate",
                                  "examples/contracts/wrong", "--module", "contract_expiry"),
              "validation_failed", 1),
    "limits": ("remember_me", ("examples/limits/feature.req", "examples/limits/policy.req",
                               "--candidate", "examples/candidates/password_policy.py"),
               "infeasible_proven", 3),
    "open": ("discount", ("examples/discount.req", "--candidate", "{open}"),
             "sandbox_policy_violation", 5),
    "unreachable": ("sumlist", ("{unreachable}/spec.req", "--candidate",
                                "{unreachable}/total.py"), "unknown", 6),
}


def _arguments(case: str, tmp_path: Path) -> tuple[str, ...]:
    cand = tmp_path / "opener" / "discount.py"
    cand.parent.mkdir(exist_ok=True)
    cand.write_text(POLICY_VIOLATION, encoding="utf-8")
    unreachable = tmp_path / "unreachable"
    unreachable.mkdir(exist_ok=True)
    (unreachable / "spec.req").write_text(UNREACHABLE_SPEC, encoding="utf-8")
    (unreachable / "total.py").write_text("def total(arr):\n    return sum(arr)\n",
                                          encoding="utf-8")
    return tuple(a.replace("{open}", str(cand)).replace("{unreachable}", str(unreachable))
                 for a in CASES[case][1])


@pytest.mark.parametrize("json_output", [True, False], ids=["json", "text"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_status_with_its_exit_code_document_and_folder(
        case: str, json_output: bool, backend: str, tmp_path: Path) -> None:
    spec_name, _, status, exit_code = CASES[case]
    out, state = tmp_path / "out", tmp_path / "state"
    code, stdout, stderr = cli("build", *_arguments(case, tmp_path), "--sandbox", backend,
                               "--out", out, "--state", state,
                               *(("--json",) if json_output else ()))
    assert code == exit_code, (stdout, stderr)
    assert stderr == ""  # not a terminal: no progress is drawn
    outcome = json.loads((out / "outcome.json").read_text(encoding="utf-8"))
    jsonschema.validate(outcome, SCHEMA)
    if json_output:
        assert _outcome(stdout, out) == outcome
    else:
        assert stdout.startswith(f"{spec_name}: {status}: {outcome['reason']}\n")
        assert f"build folder: {out.resolve()}\n" in stdout
    assert outcome["status"] == status and outcome["spec"]["name"] == spec_name
    wheels = sorted(out.glob("*.whl"))
    if status == "verified":
        assert len(wheels) == 1 and outcome["package"]["path"] == str(wheels[0])
        assert verify_package(wheels[0]).ok
        assert json_output or f"package: {wheels[0]}\n" in stdout
        sandbox = {g["gate"]: g["detail"] for g in outcome["gates"]}["sandbox"]
        assert sandbox.startswith(f"{backend}, ") and "isolation features verified" in sandbox
    else:
        assert wheels == [] and outcome["package"] is None
    if status == "infeasible_proven":
        assert (out / "certificate.json").exists() and not (out / "candidates").exists()
    if status == "sandbox_policy_violation":
        assert {g["gate"]: g["status"] for g in outcome["gates"]}["posture"] == "refused"
    record = Ledger(state).get(outcome["build_id"])
    assert record is not None and record.status == status and record.folder == str(out.resolve())


@pytest.mark.parametrize("json_output", [True, False], ids=["json", "text"])
def test_a_docker_image_that_does_not_exist_is_sandbox_unavailable(
        json_output: bool, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, stdout, stderr = cli("build", "examples/discount.req", "--synth", "--sandbox",
                               "docker", "--image", NO_IMAGE, "--out", out, "--state",
                               tmp_path / "state", *(("--json",) if json_output else ()))
    assert code == 4, (stdout, stderr)
    outcome = json.loads((out / "outcome.json").read_text(encoding="utf-8"))
    jsonschema.validate(outcome, SCHEMA)
    assert outcome["status"] == "sandbox_unavailable" and outcome["package"] is None
    # the engine may be missing too; with one, the reason names the image
    assert "nothing was judged" in outcome["reason"]
    if json_output:
        assert _outcome(stdout, out) == outcome
    else:
        assert stdout.startswith("discount: sandbox_unavailable: ")
        assert f"build folder: {out.resolve()}\n" in stdout
    assert not list(out.glob("*.whl"))


@pytest.mark.parametrize("json_output", [True, False], ids=["json", "text"])
def test_a_process_sandbox_that_cannot_start_is_sandbox_unavailable(
        json_output: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from derivative._errors import SandboxUnavailable
    from derivative.forge.sandbox._process import ProcessLauncher

    def refuse(self: ProcessLauncher, *args: object) -> None:
        raise SandboxUnavailable("no isolation on this machine (the test's launcher refuses)")

    monkeypatch.setattr(ProcessLauncher, "launch", refuse)  # a machine that cannot isolate
    out = tmp_path / "out"
    code, stdout, stderr = cli("build", "examples/discount.req", "--synth", "--sandbox",
                               "process", "--out", out, "--state", tmp_path / "state",
                               *(("--json",) if json_output else ()))
    assert code == 4, (stdout, stderr)
    outcome = json.loads((out / "outcome.json").read_text(encoding="utf-8"))
    jsonschema.validate(outcome, SCHEMA)
    assert outcome["status"] == "sandbox_unavailable" and outcome["package"] is None
    assert "no isolation on this machine" in outcome["reason"]
    if json_output:
        assert _outcome(stdout, out) == outcome
    else:
        assert stdout.startswith("discount: sandbox_unavailable: ")
        assert f"build folder: {out.resolve()}\n" in stdout
    assert not list(out.glob("*.whl"))


def test_the_image_flag_reaches_the_sandbox(docker_launcher: object, tmp_path: Path) -> None:
    code, stdout, _ = cli("build", "examples/discount.req", "--synth", "--sandbox", "docker",
                          "--image", NO_IMAGE, "--out", tmp_path / "out", "--state",
                          tmp_path / "state")
    assert code == 4 and NO_IMAGE in stdout  # the engine is there: only the image is missing


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("argv", "message"), [
    (("examples/discount.req",), "one of the arguments --candidate --generator --synth is "
     "required"),
    (("examples/discount.req", "--synth", "--candidate", "examples/candidates/"
      "password_policy.py"), "not allowed with argument"),
    (("examples/discount.req", "--candidate", "examples/no-such-candidate.py"),
     "examples/no-such-candidate.py does not exist"),
    (("examples/password_policy.req", "--synth"), "--synth cannot write this contract:\n"
     "  system TokenStore: a system keeps state"),
    (("examples/discount.req", "--synth", "--max-repairs", "-1"), "must be 0 or more"),
    (("examples/discount.req", "--synth", "--module", "no-such"),
     "--module 'no-such' is not a dotted module name"),
    (("examples/contracts/expiry.req", "--candidate", "examples/contracts/good"),
     "candidate folder examples/contracts/good holds several modules"),
    (("examples/contracts/expiry.req", "--candidate", "examples/contracts/good", "--module",
      "expiry"), "candidate folder examples/contracts/good has no module 'expiry'"),
], ids=["no-source", "two-sources", "missing-candidate", "synth-refused", "negative-repairs",
        "bad-module", "folder-without-module", "folder-without-that-module"])
def test_bad_input_exits_2_and_writes_nothing(argv: tuple[str, ...], message: str,
                                              tmp_path: Path) -> None:
    out, state = tmp_path / "out", tmp_path / "state"
    code, stdout, stderr = cli("build", *argv, "--sandbox", "process", "--out", out,
                               "--state", state)
    assert code == 2 and stdout == ""
    assert message in stderr and "Traceback" not in stderr
    assert not out.exists() and not state.exists()


def test_a_file_name_that_is_no_module_name_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    cand = tmp_path / "my-policy.py"
    cand.write_bytes((ROOT / "examples" / "candidates" / "password_policy.py").read_bytes())
    out, state = tmp_path / "out", tmp_path / "state"
    code, stdout, stderr = cli("build", "examples/password_policy.req", "--candidate", cand,
                               "--sandbox", "process", "--out", out, "--state", state)
    assert code == 2 and stdout == ""
    assert "candidate file name 'my-policy.py' is not a module name: give --module NAME" \
        in stderr
    assert not out.exists() and not state.exists()
    code, stdout, _ = cli("build", "examples/password_policy.req", "--candidate", cand,
                          "--module", "password_policy", "--sandbox", "process", "--out", out,
                          "--state", state)
    assert code == 0 and stdout.startswith("password_policy: verified: ")


def test_an_occupied_out_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    out, state = tmp_path / "out", tmp_path / "state"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    code, stdout, stderr = cli("build", "examples/discount.req", "--synth", "--sandbox",
                               "process", "--out", out, "--state", state)
    assert code == 2 and stdout == ""
    assert "already exists and is not empty" in stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert not state.exists()  # not even the ledger's folder


# --------------------------------------------------------------------------- package verify


@pytest.fixture(scope="module")
def verified_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("verified")
    out = tmp / "out"
    code, stdout, _ = cli("build", ROOT / "examples" / "discount.req", "--synth", "--sandbox",
                          "process", "--out", out, "--state", tmp / "state")
    assert code == 0, stdout
    (wheel,) = out.glob("*.whl")
    return wheel


def _record_line(name: str, data: bytes) -> list[str]:
    raw = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, f"sha256={raw}", str(len(data))]


def _edited(wheel: Path, dest: Path, edits: dict[str, Callable[[bytes], bytes]], *,
            fix_record: bool) -> Path:
    """A copy of ``wheel`` with files edited, RECORD left alone or rewritten to match (a
    careless or a careful forger)."""
    with zipfile.ZipFile(wheel) as zin:
        entries = [(info, zin.read(info.filename)) for info in zin.infolist()]
    names = [info.filename for info, _ in entries]
    suffixes = {n: next(m for m in names if m == n or m.endswith("/" + n)) for n in edits}
    data = {info.filename: blob for info, blob in entries}
    for short, edit in edits.items():
        before = data[suffixes[short]]
        data[suffixes[short]] = edit(before)
        assert data[suffixes[short]] != before
    if fix_record:
        record = next(n for n in names if n.endswith(".dist-info/RECORD"))
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        for n in names:
            writer.writerow([n, "", ""] if n == record else _record_line(n, data[n]))
        data[record] = text.getvalue().encode()
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w") as zout:
        for info, _ in entries:
            zout.writestr(info, data[info.filename])
    return dest


def _json_edit(change: Callable[[dict[str, Any]], None]) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        doc = json.loads(data)
        change(doc)
        return json.dumps(doc, indent=2, sort_keys=True).encode()

    return edit


def _claim_version_2(doc: dict[str, Any]) -> None:
    doc["predicate"]["derivative"]["contract"]["version"] = 2


def _loosen_spec(doc: dict[str, Any]) -> None:
    doc["contract"]["obligations"] = doc["contract"]["obligations"][1:]


def _claim_more_passed(doc: dict[str, Any]) -> None:
    doc["predicate"]["passedTests"] = sorted([*doc["predicate"]["passedTests"], "made.up.id"])


def _claim_other_gates(doc: dict[str, Any]) -> None:
    doc["predicate"]["derivative"]["gates"]["posture"]["detail"] = "policy strict, 0 finding(s)"


def _backdoor(data: bytes) -> bytes:
    return data + b"\nBACKDOOR = True\n"


def test_package_verify_accepts_the_verified_wheel(verified_wheel: Path) -> None:
    code, stdout, stderr = cli("package", "verify", verified_wheel)
    assert (code, stderr) == (0, "")
    assert stdout == f"{verified_wheel}: valid: every file matches RECORD, the statement and " \
        "the contract\n"
    code, stdout, _ = cli("package", "verify", verified_wheel, "--json")
    assert code == 0 and json.loads(stdout)["valid"] is True


@pytest.mark.parametrize("fix_record", [False, True], ids=["record-stale", "record-rewritten"])
@pytest.mark.parametrize(("target", "edit", "reason"), [
    ("discount.py", _backdoor, "discount.py"),
    ("build_spec.json", _json_edit(_loosen_spec), "build_spec.json"),
    ("statement.intoto.json", _json_edit(_claim_version_2), "statement.intoto.json"),
], ids=["candidate", "build-spec", "statement"])
def test_package_verify_refuses_an_edited_wheel(
        verified_wheel: Path, tmp_path: Path, target: str, edit: Callable[[bytes], bytes],
        reason: str, fix_record: bool) -> None:
    edited = _edited(verified_wheel, tmp_path / verified_wheel.name, {target: edit},
                     fix_record=fix_record)
    code, stdout, stderr = cli("package", "verify", edited)
    assert code == 1 and stderr == "", stdout
    first = stdout.splitlines()[0]
    assert first.startswith(f"{edited}: rejected: ")
    if fix_record:  # RECORD agrees: the statement or the contract must catch it
        assert "RECORD" not in first
        expected = {"discount.py": "the code was edited",
                    "build_spec.json": "the contract was edited",
                    "statement.intoto.json": "the contract's identity differs"}[target]
        assert expected in stdout
    else:
        assert f"{reason} does not match its RECORD digest (edited)" in first
    code, stdout, _ = cli("package", "verify", edited, "--json")
    answer = json.loads(stdout)
    assert code == 1 and answer["valid"] is False and answer["reason"] in first


@pytest.mark.parametrize("claim", [_claim_more_passed, _claim_other_gates],
                         ids=["passed-tests", "gates"])
def test_package_verify_refuses_claims_the_evidence_does_not_back(
        verified_wheel: Path, tmp_path: Path, claim: Callable[[dict[str, Any]], None]) -> None:
    # a careful forger: the statement's claims rewritten, RECORD rewritten to match
    edited = _edited(verified_wheel, tmp_path / verified_wheel.name,
                     {"statement.intoto.json": _json_edit(claim)}, fix_record=True)
    code, stdout, _ = cli("package", "verify", edited)
    assert code == 1, stdout
    assert "not the ones the validation artifact records (edited)" in stdout


def test_package_verify_of_a_missing_file_exits_2(tmp_path: Path) -> None:
    code, stdout, stderr = cli("package", "verify", tmp_path / "nothing-1-py3-none-any.whl")
    assert code == 2 and stdout == ""
    assert "no such package" in stderr


# --------------------------------------------------------------------------- the ledger

EXPIRY = ROOT / "examples" / "contracts" / "expiry.req"
GOOD = ("--candidate", "examples/contracts/good", "--module", "contract_expiry")
WRONG = ("--candidate", "examples/contracts/wrong", "--module", "contract_expiry")


def _version_2(tmp_path: Path) -> Path:
    """expiry.req as version 2, with one more obligation (a stronger contract)."""
    text = EXPIRY.read_text(encoding="utf-8").replace("version 1", "version 2", 1)
    text = text.replace(
        '    example: expiring_soon(date("2026-05-29"), date("2026-03-01")) == true\n',
        '    example: expiring_soon(date("2026-05-29"), date("2026-03-01")) == true\n'
        '    example: expiring_soon(date("2026-03-01"), date("2026-03-01")) == true\n')
    assert "version 2" in text and text.count("example: expiring_soon") == 3
    spec = tmp_path / "v2" / "expiry.req"
    spec.parent.mkdir()
    spec.write_text(text, encoding="utf-8")
    return spec


def _build(tmp_path: Path, name: str, spec: Path, *source: str) -> dict[str, Any]:
    out = tmp_path / name
    code, stdout, stderr = cli("build", spec, *source, "--sandbox", "process", "--out", out,
                               "--state", tmp_path / "state", "--json")
    assert code in (0, 1), (stdout, stderr)
    return _outcome(stdout, out)


def test_ledger_status_follows_the_contract_versions(tmp_path: Path) -> None:
    state = tmp_path / "state"
    v2 = _version_2(tmp_path)
    assert api.load([v2]).identity != api.load([EXPIRY]).identity
    code, stdout, _ = cli("ledger", "status", EXPIRY, *GOOD, "--state", state)
    assert code == 1 and stdout.startswith("never verified against contract_expiry version 1")

    first = _build(tmp_path, "v1-good", EXPIRY, *GOOD)
    assert first["status"] == "verified"
    code, stdout, _ = cli("ledger", "status", EXPIRY, *GOOD, "--state", state)
    assert code == 0
    assert stdout.startswith(f"candidate {first['candidate_sha256']} was verified against "
                             f"contract_expiry version 1 (identity {first['spec']['sha256'][:12]})"
                             f" by build {first['build_id']} on ")

    code, stdout, _ = cli("ledger", "status", v2, *GOOD, "--state", state)
    assert code == 1
    assert stdout.startswith("verified only against contract_expiry version 1 ")
    assert "never against version 2" in stdout and first["build_id"] in stdout
    code, stdout, _ = cli("ledger", "status", v2, *GOOD, "--state", state, "--json")
    answer = json.loads(stdout)
    assert code == 1 and (answer["status"], answer["version"]) == ("verified_older", 1)
    assert answer["build_id"] == first["build_id"]
    assert answer["folder"] == str((tmp_path / "v1-good").resolve())

    code, stdout, _ = cli("ledger", "status", EXPIRY, *WRONG, "--state", state)
    assert code == 1 and stdout.startswith("never verified against contract_expiry version 1")

    second = _build(tmp_path, "v2-good", v2, *GOOD)
    assert second["status"] == "verified"
    code, stdout, _ = cli("ledger", "status", v2, *GOOD, "--state", state)
    assert code == 0 and second["build_id"] in stdout and "version 2" in stdout


def test_ledger_log_lists_newest_first(tmp_path: Path) -> None:
    state = tmp_path / "state"
    code, stdout, _ = cli("ledger", "log", "--state", state)
    assert (code, stdout) == (0, "no builds recorded\n")
    built = [_build(tmp_path, "a", EXPIRY, *GOOD), _build(tmp_path, "b", EXPIRY, *WRONG),
             _build(tmp_path, "c", ROOT / "examples" / "discount.req", "--synth")]
    assert [b["status"] for b in built] == ["verified", "validation_failed", "verified"]

    code, stdout, _ = cli("ledger", "log", "--state", state, "--json")
    assert code == 0
    records = [json.loads(line) for line in stdout.splitlines()]
    assert [r["build_id"] for r in records] == [b["build_id"] for b in reversed(built)]
    assert [r["folder"] for r in records] == [str((tmp_path / n).resolve()) for n in "cba"]
    assert [r["status"] for r in records] == ["verified", "validation_failed", "verified"]

    code, stdout, _ = cli("ledger", "log", "--state", state)
    lines = stdout.splitlines()
    assert code == 0 and len(lines) == 3
    for line, b, name in zip(lines, reversed(built), "cba", strict=True):
        assert b["status"] in line and line.endswith(str((tmp_path / name).resolve()))
    code, stdout, _ = cli("ledger", "log", "--state", state, "--spec", "contract_expiry",
                          "--limit", "1", "--json")
    assert [json.loads(line)["build_id"] for line in stdout.splitlines()] == \
        [built[1]["build_id"]]


# --------------------------------------------------------------------------- audit events


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _times(record: dict[str, Any]) -> None:
    started = dt.datetime.fromisoformat(record["started_at"])
    finished = dt.datetime.fromisoformat(record["finished_at"])
    assert started.utcoffset() == dt.timedelta(0) and started <= finished


def _identity(*specs: str) -> dict[str, Any]:
    loaded = api.load(list(specs))
    return {"name": loaded.name, "version": loaded.version, "sha256": loaded.identity}


def _sources(root: Path, names: list[str]) -> list[dict[str, Any]]:
    out = []
    for name in sorted(names):
        data = (root / name).read_bytes()
        out.append({"path": name, "sha256": hashlib.sha256(data).hexdigest(),
                    "source": data.decode()})
    return out


def test_build_events_hold_one_record_with_the_attempt_files(tmp_path: Path) -> None:
    events, out = tmp_path / "events.jsonl", tmp_path / "out"
    code, stdout, _ = cli("build", "examples/contracts/expiry.req", *GOOD, "--sandbox",
                          "process", "--out", out, "--state", tmp_path / "state",
                          "--events", events, "--json")
    assert code == 0
    doc = json.loads(stdout)
    (record,) = _events(events)  # the build's own check and runs add nothing
    assert record["format"] == "derivative.event/v1" and record["operation"] == "build"
    assert record["contract"] == _identity("examples/contracts/expiry.req")
    assert record["candidates"] == _sources(
        ROOT / "examples" / "contracts" / "good",
        ["cli.py", "contract_expiry.py", "tests/test_cli.py"])
    assert record["outcome"] == {"status": "verified", "reason": doc["reason"],
                                 "build_id": doc["build_id"], "folder": str(out.resolve())}
    _times(record)


def test_a_synth_build_event_quotes_the_synthesised_source(tmp_path: Path) -> None:
    events, out = tmp_path / "events.jsonl", tmp_path / "out"
    code, _, _ = cli("build", "examples/discount.req", "--synth", "--sandbox", "process",
                     "--out", out, "--state", tmp_path / "state", "--events", events)
    assert code == 0
    (record,) = _events(events)
    assert record["candidates"] == _sources(out / "candidates" / "1", ["discount.py"])
    assert record["outcome"]["status"] == "verified"


def test_check_and_run_events_hold_one_record_each(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    code, _, _ = cli("check", "examples/password_policy.req", "--events", events)
    assert code == 0
    (check,) = _events(events)
    assert check["operation"] == "check" and check["candidates"] == []
    assert check["contract"] == _identity("examples/password_policy.req")
    assert check["outcome"] == {"status": "feasible"}
    _times(check)

    code, _, _ = cli("run", "examples/password_policy.req", "--candidate",
                     "examples/candidates/password_policy.py", "--sandbox", "process",
                     "--events", events)
    assert code == 0
    first, run = _events(events)  # appended: the check's line is untouched
    assert first == check
    assert run["operation"] == "run"
    assert run["contract"] == _identity("examples/password_policy.req")
    assert run["candidates"] == _sources(ROOT / "examples" / "candidates",
                                         ["password_policy.py"])
    assert run["outcome"]["status"] == "passed"
    _times(run)


@pytest.mark.parametrize("command", ["run", "build"])
def test_a_refused_call_emits_its_refusal(command: str, tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    extra = ("--out", tmp_path / "out", "--state", tmp_path / "state") \
        if command == "build" else ()
    code, _, stderr = cli(command, "examples/discount.req", "--candidate",
                          "examples/no-such-candidate.py", "--sandbox", "process",
                          "--events", events, *extra)
    assert code == 2 and "no-such-candidate.py" in stderr
    (record,) = _events(events)
    assert record["operation"] == command and record["candidates"] == []
    assert record["contract"] == _identity("examples/discount.req")
    assert record["outcome"]["status"] == "error"
    assert record["outcome"]["error"] == "UsageError"
    assert "no-such-candidate.py" in record["outcome"]["message"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["check", "run", "build"])
def test_events_that_cannot_be_written_are_bad_input(command: str, tmp_path: Path) -> None:
    events = tmp_path / "no-such-folder" / "events.jsonl"
    extra = {"check": (), "run": ("--candidate", "examples/candidates/password_policy.py"),
             "build": ("--synth", "--out", tmp_path / "out", "--state", tmp_path / "state")}
    code, stdout, stderr = cli(command, "examples/discount.req", *extra[command],
                               "--events", events)
    assert code == 2 and stdout == ""
    assert f"--events: cannot write {events}" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.fixture
def no_subscribers() -> Iterator[None]:
    assert _audit.subscribers() == 0
    yield
    assert _audit.subscribers() == 0


def test_subscribers_get_one_record_per_top_level_call(no_subscribers: None,
                                                       tmp_path: Path) -> None:
    records: list[dict[str, Any]] = []
    loaded = derivative.load(["examples/discount.req"])
    sid = derivative.subscribe(records.append)
    try:
        derivative.check(loaded)
        assert [r["operation"] for r in records] == ["check"]
        derivative.run_candidate(loaded, RunOptions(
            candidate=str(_synthesised(tmp_path)), sandbox="process"))
        assert [r["operation"] for r in records] == ["check", "run"]
        report = derivative.build(loaded, BuildOptions(
            synth=True, sandbox="process", out=str(tmp_path / "out"),
            state=str(tmp_path / "state")))
        assert report.status == "verified"
        assert [r["operation"] for r in records] == ["check", "run", "build"]
        assert records[2]["outcome"]["build_id"] == report.outcome["build_id"]
    finally:
        assert derivative.unsubscribe(sid) is True
    assert derivative.unsubscribe(sid) is False
    derivative.check(loaded)
    assert len(records) == 3


def test_a_call_inside_another_emits_nothing(no_subscribers: None) -> None:
    records: list[dict[str, Any]] = []
    loaded = derivative.load(["examples/discount.req"])
    sid = derivative.subscribe(records.append)
    try:
        with _audit.audited("outer"):
            derivative.check(loaded)
    finally:
        derivative.unsubscribe(sid)
    assert [r["operation"] for r in records] == ["outer"]


def _synthesised(tmp_path: Path) -> Path:
    from derivative.forge.build import synth_source

    path = tmp_path / "cand" / "discount.py"
    path.parent.mkdir()
    path.write_text(synth_source(api.load(["examples/discount.req"])), encoding="utf-8")
    return path


def test_no_subscriber_means_no_record_is_built(no_subscribers: None, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(operation: str) -> None:
        raise AssertionError(f"an audit record of {operation} was built for no one")

    monkeypatch.setattr(_audit, "AuditCall", refuse)
    loaded = derivative.load(["examples/discount.req"])
    assert derivative.check(loaded).status == "feasible"
    run = derivative.run_candidate(loaded, RunOptions(candidate=str(_synthesised(tmp_path)),
                                                      sandbox="process"))
    assert run.status == "passed"
    report = derivative.build(loaded, BuildOptions(synth=True, sandbox="process",
                                                   out=str(tmp_path / "out"),
                                                   state=str(tmp_path / "state")))
    assert report.status == "verified"
    code, _, _ = cli("check", "examples/discount.req")  # no --events: no subscriber either
    assert code == 0


# --------------------------------------------------------------------------- progress


def test_a_terminal_sees_the_gates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from derivative.cli import _progress

    # drawn at once: by default only after a second, and a build whose plans are cached
    # by earlier tests of the session can end sooner
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setenv("TERM", "xterm-256color")  # a terminal that takes colour and motion
    for name in ("NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    terminal = _Terminal()
    code, stdout, stderr = cli("build", "examples/discount.req", "--synth", "--sandbox",
                               "process", "--out", tmp_path / "out", "--state",
                               tmp_path / "state", stderr=terminal)
    assert code == 0 and stdout.startswith("discount: verified: ")
    for gate in ("freeze", "feasibility", "posture", "sandbox", "obligations", "package"):
        assert f"{gate}: done in " in stderr, gate
    assert "\x1b[" in stderr  # drawn by rich, for a terminal


@pytest.mark.parametrize("terminal", [True, False], ids=["json-on-a-terminal", "text-on-a-pipe"])
def test_no_progress_under_json_or_off_a_terminal(
    terminal: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from derivative.cli import _progress

    monkeypatch.setattr(_progress, "DELAY", 0.0)  # it would be drawn at once, if at all
    stream = _Terminal() if terminal else io.StringIO()
    code, stdout, stderr = cli("build", "examples/discount.req", "--synth", "--sandbox",
                               "process", "--out", tmp_path / "out", "--state",
                               tmp_path / "state", *(("--json",) if terminal else ()),
                               stderr=stream)
    assert code == 0 and stderr == ""
    assert (json.loads(stdout)["status"] if terminal else stdout.split(":")[1].strip()) \
        == "verified"


def test_reading_the_ledger_creates_nothing(tmp_path: Path) -> None:
    state = tmp_path / "no-state-yet"
    code, stdout, _ = cli("ledger", "log", "--state", state)
    assert (code, stdout) == (0, "no builds recorded\n")
    code, stdout, _ = cli("ledger", "status", "examples/discount.req", "--candidate",
                          "examples/candidates/password_policy.py", "--state", state)
    assert code == 1 and "never verified" in stdout
    assert not state.exists()
