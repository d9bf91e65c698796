"""The console script pauses the garbage collector for the process's start only.

``derivative._cli_entry.main`` disables the collector before importing the CLI and the
command's modules; ``derivative.cli.main`` ends the pause once the command line is
parsed, so every command's own work runs with the collector on (a long ``build`` or
``run`` makes cyclic garbage that must be collected), and a library call of
``derivative.cli.main`` leaves the collector exactly as it found it.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import derivative.cli._check as check_command
from derivative import _cli_entry, _gcpause
from derivative.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "password_policy.req"


@pytest.fixture
def collector() -> Iterator[None]:
    """Restore the collector (and unfreeze what a test froze) whatever the test did."""
    was = gc.isenabled()
    yield
    gc.unfreeze()
    _gcpause._paused_for_start = False
    if was:
        gc.enable()
    else:
        gc.disable()


def _spy_on_run(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    seen: list[bool] = []
    real = check_command.run

    def spy(*args: object) -> int:
        seen.append(gc.isenabled())
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(check_command, "run", spy)
    return seen


def test_the_command_runs_with_the_collector_on(
    collector: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gc.enable()
    seen = _spy_on_run(monkeypatch)
    monkeypatch.setattr(sys, "argv", ["derivative", "check", str(EXAMPLE)])
    assert _cli_entry.main() == 0
    assert seen == [True]
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # what the start built was moved out of the scans
    assert "feasible" in capsys.readouterr().out


def test_a_bad_command_line_still_ends_the_pause(
    collector: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gc.enable()
    monkeypatch.setattr(sys, "argv", ["derivative", "check", "--no-such-flag"])
    assert _cli_entry.main() == 2
    assert gc.isenabled()
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize("enabled", [True, False])
def test_a_library_call_leaves_the_collector_alone(
    collector: None,
    enabled: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()
    seen = _spy_on_run(monkeypatch)
    assert main(["check", str(EXAMPLE)]) == 0
    assert seen == [enabled]
    assert gc.isenabled() is enabled
    assert gc.get_freeze_count() == 0


def test_a_collector_already_off_is_not_turned_on(collector: None) -> None:
    gc.disable()
    _gcpause.pause_for_start()
    _gcpause.start_over()
    assert not gc.isenabled()
