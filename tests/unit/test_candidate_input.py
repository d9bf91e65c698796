"""A bad target is a clear answer: said at once, in the user's words, with the place.

``derivative tests`` names a target that is not there as such (not an import error about a
module called ``dir/x``); ``derivative run`` checks that the candidate exists and is Python
source before the solver spends any time on the contract, and a binary or undecodable file
is bad input (exit 2), not a posture refusal; a candidate that lacks a function the
contract names gets one message naming it, not one failure per obligation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derivative.cli import main

SPEC = "examples/password_policy.req"
CANDIDATE = Path("examples/candidates/password_policy.py")


@pytest.fixture(autouse=True)
def _in_repo_root(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo_root)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- tests --target


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("cands/nothere.py", "error: no such file or folder: cands/nothere.py\n"),
        ("cands/nothere", "error: no such file or folder: cands/nothere\n"),
        ("examples/discount.req", "error: examples/discount.req is not a .py file\n"),
        ("no_such_module_here", "error: no module named 'no_such_module_here' can be imported "
         "from the current directory"),
    ],
)
def test_a_target_that_is_not_there_is_named_as_such(
    capsys: pytest.CaptureFixture[str], target: str, message: str,
) -> None:
    code, out, err = cli(capsys, "tests", "examples/discount.req", "--target", target)
    assert (code, out) == (2, "")
    assert err.startswith(message), err
    assert "ModuleNotFoundError" not in err and "Traceback" not in err


# --------------------------------------------------------------------------- not Python


def _not_python(folder: Path) -> dict[str, tuple[Path, str]]:
    """Candidates that are not Python source, and the start of what each is told."""
    binary = folder / "binary.py"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)))
    latin = folder / "latin.py"
    latin.write_bytes(b"def is_strong(password):\n    return password != '\xe9'\n")
    broken = folder / "broken.py"
    broken.write_text("def is_strong(password:\n    return True\n", encoding="utf-8")
    return {
        "binary": (binary, f"error: {binary} is not Python source: it holds NUL bytes"),
        "latin": (latin, f"{latin}:2:25: error: not Python source: byte 0xe9 is not UTF-8 "
                  "text\n        return password != '\ufffd'\n" + " " * 28 + "^\nhint: "),
        "syntax": (broken, f"{broken}:1:14: error: the candidate is not valid Python: "),
    }


@pytest.mark.parametrize("kind", ["binary", "latin", "syntax"])
@pytest.mark.parametrize("command", ["run", "tests"])
def test_a_candidate_that_is_not_python_source_is_bad_input_before_the_solver(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    kind: str, command: str,
) -> None:
    from derivative.forge.run import _pipeline

    def no_solver(*args: object) -> None:
        raise AssertionError("the solver ran before the candidate was read")

    monkeypatch.setattr(_pipeline, "_feasibility", no_solver)
    path, message = _not_python(tmp_path)[kind]
    flag = "--candidate" if command == "run" else "--target"
    code, out, err = cli(capsys, command, SPEC, flag, str(path), "--sandbox", "process") \
        if command == "run" else cli(capsys, command, SPEC, flag, str(path))
    assert (code, out) == (2, "")
    assert err.startswith(message), err
    assert "sandbox_policy_violation" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "nothere.py", "error: candidate {d}/nothere.py does not exist\n"),
        (lambda d: d, "error: candidate folder {d} is not a package: choose the module with "
         "--module\n"),
    ],
)
def test_run_refuses_a_missing_candidate_before_the_solver(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    make: object, message: str,
) -> None:
    from derivative.forge.run import _pipeline

    def no_solver(*args: object) -> None:
        raise AssertionError("the solver ran before the candidate was read")

    monkeypatch.setattr(_pipeline, "_feasibility", no_solver)
    assert callable(make)
    code, out, err = cli(capsys, "run", SPEC, "--candidate", str(make(tmp_path)))
    assert (code, out, err) == (2, "", message.format(d=tmp_path))


def test_run_refuses_a_folder_without_the_module(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    (tmp_path / "other.py").write_text("x = 1\n", encoding="utf-8")
    code, out, err = cli(capsys, "run", SPEC, "--candidate", str(tmp_path), "--module", "pp")
    assert (code, out) == (2, "")
    assert err == f"error: candidate folder {tmp_path} has no module 'pp' (pp.py or " \
        "pp/__init__.py)\n"


# --------------------------------------------------------------------------- missing names


def _without(tmp_path: Path, start: str, end: str | None, name: str = "cand.py") -> Path:
    source = CANDIDATE.read_text(encoding="utf-8")
    i = source.index(start)
    j = source.index(end, i) if end else len(source)
    path = tmp_path / name
    path.write_text(source[:i] + source[j:], encoding="utf-8")
    return path


def test_a_missing_function_is_said_once_with_the_obligations_it_leaves_unjudged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    path = _without(tmp_path, "def parse_minutes", "class TokenStore")
    code, out, err = cli(capsys, "tests", SPEC, "--target", str(path), "--examples", "10")
    assert (code, err) == (1, "")
    ids = "parse_minutes.requires.d2605b, parse_minutes.raises.ValueError, " \
        "parse_minutes.ensures.02b9d9"
    assert out.splitlines()[1] == ("not judged: the candidate defines no parse_minutes, so 3 "
                                   f"obligations could not be judged: {ids}")
    assert out.count("parse_minutes") == 4  # that line only; no failure per obligation
    assert "got:" not in out and "AttributeError" not in out
    code, out, _ = cli(capsys, "tests", SPEC, "--target", str(path), "--examples", "10",
                       "--json")
    doc = json.loads(out)
    assert doc["reason"] == "the candidate defines no parse_minutes (3 obligations not judged)"
    failed = [o for o in doc["obligations"] if o["status"] == "failed"]
    assert [o["counterexample"]["undefined"] for o in failed] == \
        ["the candidate defines no parse_minutes"] * 3


def test_a_missing_method_leaves_its_system_unjudged_in_one_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    path = _without(tmp_path, "    def forget", None)
    code, out, _ = cli(capsys, "tests", SPEC, "--target", str(path), "--examples", "10")
    assert code == 1
    lines = [line for line in out.splitlines() if "TokenStore" in line]
    assert len(lines) == 1, out
    assert lines[0].startswith("not judged: the candidate's TokenStore has no method forget, "
                               "so 6 obligations could not be judged: ")
    assert "single_use" in lines[0]


def test_several_missing_names_are_one_block(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = cli(capsys, "tests", "examples/discount.req", "--target", "json",
                       "--examples", "5")
    assert code == 1
    lines = out.splitlines()
    assert lines[1] == ("not judged: the candidate lacks what the contract names, so 13 "
                        "obligations could not be judged:")
    assert [line.split(":")[0] for line in lines[2:]] == [
        "  the candidate defines no discounted", "  the candidate defines no tier_percent",
        "  the candidate defines no parse_percent"]
