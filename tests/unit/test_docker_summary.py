"""The suite's report ends by counting the Docker tests it skipped (tests/docker_summary.py).

Each test runs pytest in a fresh process on a tiny suite of its own, with the plugin loaded
by name, and reads what a person at the terminal would read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent

SUITE = '''
import pytest

def test_plain():
    pass

@pytest.mark.docker
def test_marked():
    pytest.skip("no engine")

def test_fixture_at_run_time():
    pytest.skip("Docker sandbox unavailable: cannot connect to the Docker daemon")

def test_other_skip():
    pytest.skip("not on this platform")
'''


def _pytest(folder: Path, source: str) -> subprocess.CompletedProcess[str]:
    (folder / "pytest.ini").write_text("[pytest]\nmarkers =\n    docker: needs Docker\n")
    (folder / "test_tiny.py").write_text(textwrap.dedent(source))
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-p", "docker_summary", str(folder)],
        cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


def test_skipped_docker_tests_are_counted_with_the_way_to_run_them(tmp_path: Path) -> None:
    done = _pytest(tmp_path, SUITE)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    # the marked test and the fixture's skip count; the other skip does not
    assert "2 Docker tests were skipped" in out
    assert "did NOT run in full" in out
    assert "bash .ci/docker-setup.sh" in out and "same pytest command again" in out
    # pytest's own count is still there, after the explanation
    assert out.index("2 Docker tests were skipped") < out.index("3 skipped")


def test_nothing_is_added_when_no_docker_test_was_skipped(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "import pytest\n\ndef test_plain():\n    pass\n\n"
                   "def test_skip():\n    pytest.skip('not on this platform')\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Docker" not in done.stdout
    assert "1 passed, 1 skipped" in done.stdout
