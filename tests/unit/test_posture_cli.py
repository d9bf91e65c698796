"""``derivative validate-code``: exit codes and output (docs/cli.md §1).

Driven through ``derivative.cli.main``, exactly as a user runs the command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derivative.cli import main


def invoke(argv: list[str]) -> int:
    return main(argv)


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.py"
    path.write_text("import math\n\ndef f(x: int) -> int:\n    return math.floor(x) + 1\n")
    return path


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.py"
    path.write_text("import os\n\ndef f(x: int) -> int:\n    return eval('x + 1')\n")
    return path


def test_accepted_exits_0(good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert invoke(["validate-code", str(good)]) == 0
    assert capsys.readouterr().out == "accepted by policy default: no findings\n"


def test_refused_exits_1_and_prints_each_finding(
    bad: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert invoke(["validate-code", str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[0]
        == f"{bad}:1:8: import_policy: module os is not in the allow-list of policy default"
    )
    assert lines[1] == f"{bad}:4:12: builtin_policy: eval: eval runs a string as code"
    assert lines[-1] == "refused by policy default: 2 findings"


def test_permissive_accepts_and_still_reports(
    bad: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert invoke(["validate-code", str(bad), "--policy", "permissive"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 and out[-1].startswith("accepted: policy permissive reports")


def test_json_output_is_the_verdict(bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert invoke(["validate-code", str(bad), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "derivative.posture/v1"
    assert doc["accepted"] is False and doc["policy"] == "default"
    assert [f["strategy"] for f in doc["findings"]] == ["import_policy", "builtin_policy"]
    assert set(doc["findings"][0]) == {"strategy", "file", "line", "column", "message"}


def test_a_policy_file_can_be_given(bad: Path, tmp_path: Path) -> None:
    policy = tmp_path / "lenient.json"
    policy.write_text(json.dumps({"extends": "default", "name": "mine", "enforce": False}))
    assert invoke(["validate-code", str(bad), "--policy", str(policy)]) == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["validate-code", "/nonexistent/candidate.py"],
        ["validate-code", "GOOD", "--policy", "no-such-policy"],
        ["validate-code", "GOOD", "--policy", "/nonexistent/policy.json"],
    ],
)
def test_bad_input_is_a_usage_error_with_exit_code_2(
    argv: list[str], good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(good) if a == "GOOD" else a for a in argv]
    assert invoke(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and "Traceback" not in err


def test_the_default_policy_is_the_shipped_default(
    good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert invoke(["validate-code", str(good), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["policy"] == "default"
