"""Long work shows what it is doing on a terminal, and nothing anywhere else.

``check``, ``run`` and ``tests`` draw a ``rich`` status line on standard error once the work
has lasted ``DELAY`` seconds (the tests set it to 0, or to a minute, so that no outcome
depends on the machine's speed): the solver's questions, the functions and systems whose
examples run and the calls made so far; each step that ends leaves a ``done in`` line.
Under ``--json``, or when standard error is not a terminal, nothing is written there.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from derivative.cli import _progress, main

CLAMP = "tests/corpus/clamp_upper_off_by_one"
COMMANDS = {
    "check": ["check", "examples/password_policy.req"],
    "tests": ["tests", f"{CLAMP}/spec.req", "--target", f"{CLAMP}/correct.py",
              "--examples", "60"],
    "run": ["run", f"{CLAMP}/spec.req", "--candidate", f"{CLAMP}/correct.py",
            "--sandbox", "process", "--examples", "60"],
}
STEPS = {
    "check": ["questions"],
    "tests": ["obligations"],
    "run": ["feasibility", "posture", "sandbox", "obligations", "replay"],
}


class Terminal(io.StringIO):
    """A stream that says it is a terminal (where progress is drawn)."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _a_colour_terminal(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo_root)
    monkeypatch.setenv("TERM", "xterm-256color")  # a terminal that takes colour and motion
    for name in ("NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)


def _cli(argv: list[str], stderr: io.StringIO) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(argv, stdout=out, stderr=stderr)
    return code, out.getvalue(), stderr.getvalue()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_terminal_sees_each_step(
    monkeypatch: pytest.MonkeyPatch, command: str,
) -> None:
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    code, stdout, stderr = _cli(COMMANDS[command], Terminal())
    assert code == 0, stdout + stderr
    assert "\x1b[" in stderr  # drawn by rich, for a terminal
    for step in STEPS[command]:
        assert f"{step}: done in " in stderr, (step, stderr)
    if command == "check":
        assert "questions" in stderr and " of " in stderr
    else:  # the function under test, and the calls made
        assert "1 of 1: clamp" in stderr and "calls so far" in stderr
    assert "\x1b[" not in stdout  # the report itself stays plain


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_quick_work_draws_nothing(monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    monkeypatch.setattr(_progress, "DELAY", 600.0)  # no command here lasts ten minutes
    code, _, stderr = _cli(COMMANDS[command], Terminal())
    assert (code, stderr) == (0, "")


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("where", ["json-on-a-terminal", "text-on-a-pipe"])
def test_nothing_extra_under_json_or_off_a_terminal(
    monkeypatch: pytest.MonkeyPatch, command: str, where: str,
) -> None:
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    terminal = where == "json-on-a-terminal"
    argv = COMMANDS[command] + (["--json"] if terminal else [])
    code, stdout, stderr = _cli(argv, Terminal() if terminal else io.StringIO())
    assert (code, stderr) == (0, "")
    if terminal:
        json.loads(stdout)  # the document, and nothing else
    assert "\x1b[" not in stdout
