"""A line at the end of pytest's report that counts the Docker tests it skipped.

Without a Docker engine and the sandbox image, the Docker tests skip on a developer's
machine (under ``CI=true`` they fail instead: see ``tests/integration/conftest.py``).
pytest's own summary only says ``153 skipped``, which a newcomer easily reads as "the
suite ran"; this plugin says how many of those were Docker tests and how to run them.

A skipped test is a Docker test when it carries the ``docker`` marker or when its skip
reason is the Docker fixture's (``DOCKER_SKIP``): tests that ask for the fixture at run
time (``request.getfixturevalue("docker_launcher")``) carry no marker.

``tests/conftest.py`` imports the hook, so every run of the suite has it; the module is
also a plugin of its own (``-p docker_summary``), which is how its test runs it on a tiny
suite in a separate pytest process.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

__all__ = ["DOCKER_SETUP", "DOCKER_SKIP", "docker_skips", "pytest_terminal_summary"]

DOCKER_SKIP = "Docker sandbox unavailable"
"""The start of the reason the Docker fixture skips with."""

DOCKER_SETUP = "bash .ci/docker-setup.sh"
"""What sets up the engine and the image (what CI runs before the tests)."""


def _reason(report: Any) -> str:
    """The skip reason of a report (``longrepr`` is ``(path, line, reason)`` for a skip)."""
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr or "")


def docker_skips(reports: Iterable[Any]) -> int:
    """How many of the skipped ``reports`` are Docker tests (see the module docstring)."""
    return sum(1 for r in reports
               if "docker" in getattr(r, "keywords", {}) or DOCKER_SKIP in _reason(r))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    """Say plainly how many Docker tests did not run, and how to run them."""
    skipped = docker_skips(terminalreporter.stats.get("skipped", []))
    if not skipped:
        return
    tests = "test was" if skipped == 1 else "tests were"
    terminalreporter.write_sep("=", "Docker tests skipped", yellow=True, bold=True)
    terminalreporter.write_line(
        f"{skipped} Docker {tests} skipped: this machine has no Docker engine or no sandbox "
        "image, so the suite did NOT run in full.")
    terminalreporter.write_line(
        f"To run them: `{DOCKER_SETUP}` (installs and starts the engine, builds the image "
        "offline), then the same pytest command again.")
