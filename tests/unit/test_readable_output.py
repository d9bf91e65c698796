"""No internals in what a person reads: no ``format: None``, no Python reprs of values
(``<Outcome.ok: 'ok'>``, memory addresses), no Docker SDK exception reprs, no temporary
cgroup paths, bytecode instruction names in interleavings only under ``--verbose``, and
no ``.hypothesis/`` folder left in the user's working directory.
"""

from __future__ import annotations

import enum
import os
import subprocess
import sys
from pathlib import Path

import pytest

from derivative._errors import SandboxUnavailable
from derivative.certificates import verify
from derivative.cli import main

ROOT = Path(__file__).resolve().parents[2]
RACY = ("examples/password_policy.req", "--target",
        "examples/candidates/password_policy_racy.py", "--examples", "20")


@pytest.fixture(autouse=True)
def _in_repo_root(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo_root)


def test_a_document_without_a_format_is_said_so_without_none() -> None:
    assert verify({"a": 1}, solvers=()).reasons == [
        'not a derivative.certificate/v1 document: it has no "format" field']
    assert verify({"format": "derivative.check/v1"}, solvers=()).reasons == [
        'not a derivative.certificate/v1 document: its "format" is "derivative.check/v1"']


class Outcome(enum.Enum):
    ok = "ok"


class Thing:
    pass


def test_interleaving_values_are_written_as_the_reports_write_values() -> None:
    from derivative.forge.inside._explore import _short

    assert _short(Outcome.ok) == "Outcome.ok"
    assert _short("A-1") == '"A-1"' and _short('say "hi"') == '"say \\"hi\\""'
    assert (_short(True), _short(False), _short(None)) == ("true", "false", "none")
    assert _short([1, "x", Outcome.ok]) == '[1, "x", Outcome.ok]'
    assert _short(Thing()) == "<Thing object>"  # no memory address


def test_plain_leaves_out_the_bytecode_instructions() -> None:
    from derivative.forge.inside._explore import plain

    verbose = (
        "    thread 1 racy.py:46    if self._used.get(token, True):   [LOAD_ATTR LOAD_METHOD "
        "CALL ...]\n"
        "         -- switch: preempts thread 1 before POP_JUMP_FORWARD_IF_FALSE at racy.py:46; "
        "thread 2 runs\n"
        "    thread 2 returned Outcome.ok")
    assert plain(verbose) == (
        "    thread 1 racy.py:46    if self._used.get(token, True):\n"
        "         -- switch: preempts thread 1 at racy.py:46; thread 2 runs\n"
        "    thread 2 returned Outcome.ok")
    schedule = "[13:1] thread 1 -> thread 2 (preempts thread 1 before LOAD_ATTR at r.py:4)"
    assert plain(schedule) == "[13:1] thread 1 -> thread 2 (preempts thread 1 at r.py:4)"


def test_the_interleaving_report_reads_without_reprs_or_bytecode(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["tests", *RACY])
    out = capsys.readouterr().out
    assert code == 1
    assert "failed under concurrency" in out and "interleaving:" in out
    assert "<Outcome" not in out and "'ok'" not in out
    assert "returned Outcome.ok" in out
    assert "preempts thread 1 at password_policy_racy.py:" in out
    assert "LOAD_" not in out and "POP_JUMP" not in out and "   [" not in out


def test_verbose_names_the_bytecode_instructions(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tests", *RACY, "--verbose"])
    out = capsys.readouterr().out
    assert code == 1
    assert "preempts thread 1 before " in out and "   [LOAD_" in out


def test_the_sdk_exceptions_are_said_in_plain_words(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    from derivative.forge.sandbox._image import docker_client

    for host, why in ((f"unix://{tmp_path}/none.sock", "no such file or directory"),
                      ("tcp://127.0.0.1:1", "connection refused")):
        monkeypatch.setenv("DOCKER_HOST", host)
        with pytest.raises(SandboxUnavailable) as caught:
            docker_client(timeout=2)
        message = str(caught.value)
        assert message.startswith(f"no Docker engine answers at {host} ({why}); start one")
        for internal in ("Error(", "Pool(", "'", "Errno", "Max retries"):
            assert internal not in message, message


def test_the_doctor_names_no_temporary_cgroup() -> None:
    from derivative.forge.sandbox._doctor import Report, _cgroup_facts

    report = Report()
    _cgroup_facts(report)
    details = " ".join(f.detail for f in report.findings)
    assert "derivative-" not in details, details


@pytest.mark.parametrize("command", [
    ["tests", str(ROOT / "tests/corpus/clamp_upper_off_by_one/spec.req"), "--target",
     str(ROOT / "tests/corpus/clamp_upper_off_by_one/wrong.py")],
    ["run", str(ROOT / "examples/password_policy.req"), "--candidate",
     str(ROOT / "examples/candidates/password_policy.py"), "--sandbox", "process",
     "--examples", "20"],
])
def test_no_hypothesis_folder_is_left_in_the_working_directory(
    tmp_path: Path, command: list[str],
) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")])}
    env.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    done = subprocess.run([sys.executable, "-m", "derivative", *command], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
