"""``derivative certificate verify``: exit 0 valid, 1 rejected (with reasons), 2 bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derivative._typecheck import check
from derivative.certificates import build_certificate
from derivative.certificates._model import payload_sha256
from derivative.cli import main
from derivative.grammar import load

SPEC = """\
spec tries version 1
param max_attempts: int
requirement R1 "at least three tries": max_attempts >= 3
requirement R2: max_attempts shall be at most 2
"""


def cli(argv: list[str]) -> int:
    """The command as users run it: bad input becomes the error's exit code."""
    return main(argv)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("cli")
    spec = folder / "tries.req"
    spec.write_text(SPEC, encoding="utf-8")
    contract = load([str(spec)])
    info = check(contract)
    r1, r2 = contract.obligations
    cert = build_certificate(
        contract, info, "inconsistent_requirements", [r1, r2], None,
        {"R1": {"max_attempts": 0}, "R2": {"max_attempts": 3}},
    )  # fmt: skip
    good = cert.write(folder / "certificate.json")
    doc = cert.to_json()
    doc["minimality"][0]["model"]["max_attempts"] = 9
    doc["sha256"] = payload_sha256(doc)
    bad = folder / "tampered.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    other = folder / "other.req"
    other.write_text(SPEC.replace("at most 2", "at most 9"), encoding="utf-8")
    garbage = folder / "garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    return {"spec": spec, "good": good, "bad": bad, "other": other, "garbage": garbage}


def test_a_valid_certificate_exits_0(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["certificate", "verify", str(files["good"]), "--spec", str(files["spec"])]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"valid: {files['good']}")
    assert "check: z3" in out and "check: cvc5" in out and "farkas" in out


def test_a_tampered_certificate_exits_1_with_the_reason(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["certificate", "verify", str(files["bad"])]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"rejected: {files['bad']}")
    assert "reason: minimality without R1: R2 does not hold in the model" in out


def test_the_wrong_spec_exits_1(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["certificate", "verify", str(files["good"]), "--spec", str(files["other"])]) == 1
    assert "the spec's identity is" in capsys.readouterr().out


def test_json_output(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["certificate", "verify", str(files["bad"]), "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["valid"] is False
    assert verdict["certificate"] == str(files["bad"])
    assert [c["solver"] for c in verdict["checks"]] == ["z3", "cvc5"]
    assert any("minimality" in r for r in verdict["reasons"])


@pytest.mark.parametrize("which", ["garbage", "missing", "folder", "missing_spec"])
def test_bad_input_exits_2(files: dict[str, Path], which: str) -> None:
    argv = {
        "garbage": [str(files["garbage"])],
        "missing": [str(files["good"].parent / "nope.json")],
        "folder": [str(files["good"].parent)],
        "missing_spec": [str(files["good"]), "--spec", str(files["good"].parent / "nope.req")],
    }[which]
    assert cli(["certificate", "verify", *argv]) == 2
