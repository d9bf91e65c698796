"""``derivative run``: the whole pipeline through the CLI, on both backends.

Every status (docs/cli.md, "Exit codes") that ``run`` can end in is reached here by a real run
(no stubbed sandbox): ``passed`` 0, ``failed`` 1, bad input 2, ``infeasible_proven`` 3,
``sandbox_unavailable`` 4, ``sandbox_policy_violation`` 5.  The JSON document is checked
against the published model and schema, and the receipts against the document.
"""

from __future__ import annotations

import json
import textwrap
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from derivative._errors import exit_code_for
from derivative.cli import main
from derivative.forge.run._document import RunDocument, RunStatus
from derivative.forge.sandbox._sandbox import Launcher

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"

CLAMP = CORPUS / "clamp_upper_off_by_one"

SUCC = """\
spec succ version 1
function f(x: int) -> int
    requires: -1000 <= x <= 1000
    ensures S: result == x + 1
    example: f(1) == 2
"""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, err = _run(capsys, *argv, "--json")
    assert "Traceback" not in err
    doc = json.loads(out)
    RunDocument.model_validate(doc)  # the published model (and so the schema) holds
    _jsonschema(doc)
    return code, doc


def _jsonschema(doc: dict[str, Any]) -> None:
    try:
        import jsonschema
    except ImportError:
        return
    schema = json.loads(
        (ROOT / "derivative" / "schemas" / "derivative.run.v1.schema.json").read_text("utf-8"))
    jsonschema.validate(doc, schema)


@pytest.fixture(params=["process", "docker"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "docker":
        # Fails under CI=true when Docker is missing, skips on a developer's machine.
        request.getfixturevalue("docker_launcher")
    return str(request.param)


@pytest.fixture
def spec_file(tmp_path: Path) -> Callable[[str], Path]:
    def write(text: str) -> Path:
        path = tmp_path / "spec.req"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


# --------------------------------------------------------------------------- verdicts


def test_a_correct_candidate_passes_with_receipts(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = _json(capsys, str(CLAMP / "spec.req"), "--candidate", str(CLAMP / "correct.py"),
                      "--sandbox", backend, "--examples", "40")
    assert (code, doc["status"]) == (0, "passed"), doc["reason"]
    assert doc["format"] == "derivative.run/v1"
    assert doc["sandbox"]["backend"] == backend
    assert doc["sandbox"]["isolation"], "the isolation the run had is recorded"
    assert (doc["sandbox"]["image_id"] is None) == (backend == "process")
    assert doc["posture"]["accepted"] and doc["posture"]["policy"] == "default"
    assert doc["obligations"] and all(o["status"] == "passed" for o in doc["obligations"])
    assert all(o["inputs"] >= 40 for o in doc["obligations"])
    receipts = doc["receipts"]
    # the judged run's sandbox, then the replay's (a fresh one, staged elsewhere)
    assert [r["ended"] for r in receipts] == ["closed", "closed"]
    for receipt in receipts:
        assert receipt["backend"] == backend
        assert receipt["candidate_sha256"] == doc["candidate"]["sha256"]
        assert receipt["contract_sha256"] == doc["spec"]["sha256"]
    assert doc["replay"]["mismatches"] == [] and doc["replay"]["calls"] > 0
    assert doc["enforcing"] is True and all(r["guard"] for r in receipts)
    # the replay's checkout stands somewhere else than the judged run's
    assert receipts[0]["layout"] != receipts[1]["layout"]
    assert all(r["layout"].startswith("/home/") for r in receipts)
    assert receipts[1]["calls"] == doc["replay"]["calls"]
    assert receipts[0]["calls"] >= sum(o["inputs"] for o in doc["obligations"]) // 3
    assert doc["warnings"] == []


def test_a_wrong_candidate_fails_with_a_shrunk_counterexample(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = _json(capsys, str(CLAMP / "spec.req"), "--candidate", str(CLAMP / "wrong.py"),
                      "--sandbox", backend, "--examples", "40")
    assert (code, doc["status"]) == (1, "failed")
    failed = [o for o in doc["obligations"] if o["status"] == "failed"]
    assert failed
    for o in failed:
        assert o["counterexample"] is not None
    # The text report names the input and what was required.
    code, out, _ = _run(capsys, str(CLAMP / "spec.req"), "--candidate", str(CLAMP / "wrong.py"),
                        "--sandbox", backend, "--examples", "40")
    assert code == 1
    assert "input:    clamp(" in out and "required:" in out


def test_the_text_report_says_where_it_ran(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(CLAMP / "spec.req"), "--candidate",
                        str(CLAMP / "correct.py"), "--sandbox", "process", "--examples", "20")
    assert code == 0
    assert out.startswith("clamp: passed: ")
    assert "sandbox: process" in out and "posture: policy default, accepted" in out
    assert "receipts: 2 sandbox starts" in out  # the judged run and its replay
    assert "histories again in a fresh sandbox staged elsewhere: the same answers" in out


def test_a_candidate_that_cannot_be_imported_fails(
    tmp_path: Path, spec_file: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cand = tmp_path / "succ.py"
    cand.write_text("raise ValueError('broken on import')\n\ndef f(x):\n    return x + 1\n",
                    encoding="utf-8")
    code, doc = _json(capsys, str(spec_file(SUCC)), "--candidate", str(cand),
                      "--sandbox", "process", "--examples", "10")
    assert (code, doc["status"]) == (1, "failed")
    assert "could not be imported" in doc["reason"] and "broken on import" in doc["reason"]
    judged = [o for o in doc["obligations"] if o["kind"] != "requires"]
    assert judged and all(o["status"] == "failed" for o in judged)


def test_what_the_candidate_lacks_is_said_once(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A candidate without a function and with a class that lacks a method: the worker
    says so (``SandboxUndefined``), and the report says it once per name, not once per
    obligation."""
    source = (ROOT / "examples" / "candidates" / "password_policy.py").read_text("utf-8")
    start = source.index("def parse_minutes")
    source = source[:start] + source[source.index("class TokenStore"):]
    source = source[:source.index("    def forget")]
    path = tmp_path / "lacking.py"
    path.write_text(source, encoding="utf-8")
    argv = [str(ROOT / "examples" / "password_policy.req"), "--candidate", str(path),
            "--sandbox", backend, "--examples", "10"]
    code, doc = _json(capsys, *argv)
    assert (code, doc["status"]) == (1, "failed")
    assert doc["reason"] == ("the candidate defines no parse_minutes; the candidate's "
                             "TokenStore has no method forget (9 obligations not judged)")
    code, out, _ = _run(capsys, *argv)
    assert code == 1
    assert out.count("defines no parse_minutes") == 2, out  # the reason, the block
    assert out.count("has no method forget") == 2, out
    assert "got:" not in out


def test_the_posture_refusal_stops_the_run_before_any_sandbox(
    tmp_path: Path, spec_file: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cand = tmp_path / "succ.py"
    cand.write_text("import os\n\ndef f(x):\n    return x + 1 + 0 * os.getpid()\n",
                    encoding="utf-8")
    code, doc = _json(capsys, str(spec_file(SUCC)), "--candidate", str(cand))
    assert (code, doc["status"]) == (5, "sandbox_policy_violation")
    assert doc["sandbox"] is None and doc["receipts"] == [] and doc["obligations"] == []
    assert not doc["posture"]["accepted"]
    assert {f["strategy"] for f in doc["posture"]["findings"]} >= {"import_policy"}
    # The same correct code under the reporting policy runs, passes, and says what that means.
    code, doc = _json(capsys, str(spec_file(SUCC)), "--candidate", str(cand),
                      "--policy", "permissive", "--sandbox", "process", "--examples", "20")
    assert (code, doc["status"]) == (0, "passed")
    assert doc["posture"]["accepted"] and not doc["posture"]["enforced"]
    assert doc["posture"]["findings"]
    assert any("permissive" in w and "trust" in w for w in doc["warnings"])


FORGER = """\
import os


def f(x):
    body = '{"id": 0, "ok": true, "value": %d}' % (x + 1)
    frame = ("%d\\n%s" % (len(body), body)).encode("ascii")
    for fd in range(1, 256):
        try:
            os.write(fd, frame)
        except OSError:
            pass
    return x + 2
"""


def test_a_forged_frame_is_a_policy_violation_at_run_time(
    backend: str, tmp_path: Path, spec_file: Callable[[str], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The candidate writes a response frame into every open fd; under the permissive
    policy it runs, the host catches the frame and the run is a violation (exit 5)."""
    cand = tmp_path / "forger.py"
    cand.write_text(FORGER, encoding="utf-8")
    spec = spec_file("spec h version 1\nfunction f(x: int) -> int\n"
                     "    ensures: result == x + 1\n")
    code, doc = _json(capsys, str(spec), "--candidate", str(cand), "--policy", "permissive",
                      "--sandbox", backend, "--examples", "10")
    assert (code, doc["status"]) == (5, "sandbox_policy_violation")
    assert "channel" in doc["reason"]
    assert any(r["protocol_errors"] > 0 for r in doc["receipts"])


def test_an_infeasible_contract_is_reported_before_the_candidate_is_read(
    tmp_path: Path, spec_file: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    cand = tmp_path / "c.py"
    cand.write_text("import os\n", encoding="utf-8")  # would be refused if it were read
    spec = spec_file("""\
        spec bad version 1
        param a: int
        requirement A: a > 1
        requirement B: a < 0
        function f(x: int) -> int
            ensures: result == x
    """)
    code, doc = _json(capsys, str(spec), "--candidate", str(cand))
    assert (code, doc["status"]) == (3, "infeasible_proven")
    assert "A, B" in doc["reason"]
    assert doc["posture"] is None and doc["receipts"] == []


def test_docker_without_its_image_is_unavailable_not_a_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, doc = _json(capsys, str(CLAMP / "spec.req"), "--candidate", str(CLAMP / "correct.py"),
                      "--sandbox", "docker", "--image", "derivative-no-such-image:0")
    assert (code, doc["status"]) == (4, "sandbox_unavailable")
    assert "nothing was judged" in doc["reason"]
    assert doc["obligations"] == [] and doc["receipts"] == []


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--candidate", "no/such/file.py"), "does not exist"),
        (("--candidate", str(CLAMP / "correct.py"), "--examples", "0"), "at least 1"),
        (("--candidate", str(CLAMP / "correct.py"), "--policy", "no-such-policy"), "polic"),
        (("--candidate", str(CLAMP / "correct.py"), "--module", "not a module"), "module"),
        (("--candidate", str(CLAMP / "correct.py"), "--sandbox", "vm"), "invalid choice"),
        (("--candidate", str(CLAMP / "correct.py"), "--call-timeout", "-1"), "positive"),
        ((), "--candidate"),
    ],
)
def test_bad_requests_exit_2_without_a_traceback(
    extra: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, str(CLAMP / "spec.req"), *extra)
    assert code == 2, (out, err)
    assert message in err and "Traceback" not in err


def test_a_spec_error_points_at_the_place(
    spec_file: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    spec = spec_file("spec s version 1\nfunction f(x: int) -> int\n    ensures: result == y\n")
    code, _, err = _run(capsys, str(spec), "--candidate", str(CLAMP / "correct.py"))
    assert code == 2
    assert f"{spec}:3:" in err and "^" in err and "Traceback" not in err


def test_the_exit_codes_are_those_of_the_design() -> None:
    statuses = typing.get_args(RunStatus)
    assert {s: exit_code_for(s) for s in statuses} == {
        "passed": 0, "failed": 1, "unknown": 6, "infeasible_proven": 3,
        "sandbox_unavailable": 4, "sandbox_policy_violation": 5}


def test_docker_runs_record_the_image(
    docker_launcher: Launcher, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = _json(capsys, str(CLAMP / "spec.req"), "--candidate", str(CLAMP / "correct.py"),
                      "--sandbox", "docker", "--examples", "10")
    assert code == 0
    assert doc["sandbox"]["image_id"] == docker_launcher.image_id  # type: ignore[attr-defined]
    assert doc["receipts"][0]["image_id"] == doc["sandbox"]["image_id"]
