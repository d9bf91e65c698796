"""No flag is silently ignored: a wrong word shows its command's usage, ``-`` reads standard
input wherever a spec or a certificate is read, and a flag that a combination would ignore
is refused (exit 2) with a sentence saying why.

Everything runs in-process through ``main(argv, stdin=...)``; the commands that would
start a sandbox are given a contradictory contract, so they stop at the feasibility check
(exit 3) before any sandbox is needed.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from derivative.cli import main

Run = tuple[int, str, str]

CONSISTENT = b"spec piped version 1\nparam x: int\nrequirement R1: x >= 1\n"
CONTRADICTORY = (b"spec piped version 1\nparam x: int\nrequirement R1: x >= 10\n"
                 b"requirement R2: x <= 5\nfunction f(n: int) -> int\n    ensures: result == n\n")
CANDIDATE = "examples/candidates/password_policy.py"


@pytest.fixture(autouse=True)
def _in_repo_root(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo_root)


def cli(capsys: pytest.CaptureFixture[str], *argv: str, stdin: bytes | None = None) -> Run:
    code = main(list(argv), stdin=None if stdin is None else io.BytesIO(stdin))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- usage


@pytest.mark.parametrize(
    ("command", "required"),
    [(("check",), ()), (("parse",), ()), (("certificate", "verify"), ()),
     (("tests",), ("--target", "m.py")), (("run",), ("--candidate", "m.py")),
     (("ledger", "status"), ("--candidate", "m.py"))],
)
def test_an_unknown_flag_shows_the_usage_of_its_command(
    capsys: pytest.CaptureFixture[str], command: tuple[str, ...], required: tuple[str, ...],
) -> None:
    code, out, err = cli(capsys, *command, "--bogus", *required, "examples/discount.req")
    assert (code, out) == (2, "")
    assert err.startswith(f"usage: derivative {' '.join(command)} "), err
    assert err.rstrip().endswith("error: unrecognized arguments: --bogus")
    assert "Traceback" not in err


# --------------------------------------------------------------------------- standard input


def test_parse_and_check_read_the_spec_from_standard_input(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, "parse", "-", stdin=CONSISTENT)
    assert (code, err) == (0, ""), err
    assert out.startswith("spec piped version 1\n") and "files         <stdin>" in out
    code, out, err = cli(capsys, "check", "-", "--json", stdin=CONSISTENT)
    assert (code, err) == (0, ""), err
    assert json.loads(out)["status"] == "feasible"


def test_an_error_in_a_piped_spec_points_at_stdin(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "check", "-", stdin=b"spec s version 1\nrequirement R: y >= 1\n")
    assert (code, out) == (2, "")
    assert err.startswith("<stdin>:2:16: error: unknown name 'y'"), err


@pytest.mark.parametrize(
    ("argv", "extra"),
    [
        (("run", "-", "--candidate", CANDIDATE), ()),
        (("tests", "-", "--target", CANDIDATE), ()),
        (("build", "-", "--candidate", CANDIDATE, "--sandbox", "process"), ("--out", "--state")),
    ],
)
def test_the_judging_commands_read_the_spec_from_standard_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: tuple[str, ...],
    extra: tuple[str, ...],
) -> None:
    more = [w for flag in extra for w in (flag, str(tmp_path / flag.strip("-")))]
    code, out, err = cli(capsys, *argv, *more, "--json", stdin=CONTRADICTORY)
    if argv[0] == "tests":  # tests does not check feasibility: it judges f in-process
        assert code in (0, 1) and json.loads(out)["spec"]["name"] == "piped", err
        return
    assert code == 3, err
    assert json.loads(out)["status"] == "infeasible_proven"


def test_ledger_status_reads_the_spec_from_standard_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    code, out, err = cli(capsys, "ledger", "status", "-", "--candidate", CANDIDATE,
                         "--state", str(tmp_path), stdin=CONSISTENT)
    assert (code, err) == (1, ""), err
    assert out.startswith("never verified against piped version 1")


def test_certificate_verify_reads_the_certificate_from_standard_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    cert = tmp_path / "cert.json"
    spec = tmp_path / "spec.req"
    spec.write_bytes(CONTRADICTORY)
    code, _, err = cli(capsys, "check", str(spec), "--certificate", str(cert))
    assert code == 3, err
    code, out, err = cli(capsys, "certificate", "verify", "-", "--spec", str(spec),
                         stdin=cert.read_bytes())
    assert (code, err) == (0, ""), err
    assert out.startswith("valid: <stdin>\n")
    code, out, err = cli(capsys, "certificate", "verify", "-", stdin=b"{not json")
    assert (code, out) == (2, "")
    assert err.startswith("error: <stdin>: not JSON (line 1, column 2")


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        (("parse", "-", "examples/discount.req"), CONSISTENT, "must be the only SPEC"),
        (("check", "-"), b"spec s version 1\n\xff\n", "standard input is not UTF-8 text"),
        (("certificate", "verify", "-", "--spec", "-"), b"{}", "--spec - cannot be read from "
         "standard input"),
        (("certificate", "verify", "-"), b"\xff", "<stdin>: not UTF-8 text"),
    ],
)
def test_what_standard_input_cannot_give_is_bad_input(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], stdin: bytes, message: str,
) -> None:
    code, out, err = cli(capsys, *argv, stdin=stdin)
    assert (code, out) == (2, "")
    assert message in err and "Traceback" not in err


# --------------------------------------------------------------------------- ignored flags


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("tests", "examples/discount.req", "--target", "m.py", "-o", "OUT", "--json"),
         "--json prints the report of a run; with -o the tests are written, not run"),
        (("tests", "examples/discount.req", "--target", "m.py", "-o", "OUT", "--seed", "3"),
         "--seed seeds a run; with -o the tests are written, not run"),
        (("tests", "examples/discount.req", "--target", CANDIDATE, "--module", "m"),
         "--module names the module inside a folder given as --target; "
         f"{CANDIDATE} is a .py file"),
        (("tests", "examples/discount.req", "--target", "json", "--module", "m"),
         "json is a module name, imported as it is"),
        (("run", "examples/discount.req", "--candidate", CANDIDATE, "--sandbox", "process",
          "--image", "other:1"), "--image names the Docker image; --sandbox process runs no"),
        (("build", "examples/discount.req", "--candidate", CANDIDATE, "--sandbox", "process",
          "--image", "other:1"), "--image names the Docker image; --sandbox process runs no"),
        (("build", "examples/discount.req", "--candidate", CANDIDATE, "--max-repairs", "2"),
         "--max-repairs applies to --generator"),
        (("build", "examples/discount.req", "--synth", "--max-repairs", "0"),
         "--max-repairs applies to --generator"),
    ],
)
def test_a_flag_the_combination_would_ignore_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: tuple[str, ...], message: str,
) -> None:
    argv = tuple(str(tmp_path / "out.py") if w == "OUT" else w for w in argv)
    code, out, err = cli(capsys, *argv)
    assert (code, out) == (2, ""), err
    assert err.startswith("error: ") and message in err, err
    assert not (tmp_path / "out.py").exists()


def test_a_dotted_module_for_a_file_candidate_is_named_as_the_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, "run", "examples/password_policy.req", "--candidate",
                         CANDIDATE, "--module", "a.b", "--sandbox", "process")
    assert (code, out) == (2, "")
    assert "--module 'a.b': a .py candidate is imported as one module" in err
