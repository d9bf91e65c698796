"""Fixtures for the sandbox integration tests.

- ``write_candidate(source, name="cand")`` writes a candidate module into a fresh folder and
  returns its path;
- ``process_launcher`` is the process backend with every isolation feature the machine has;
- ``docker_launcher`` is the Docker backend.  Without an engine or the image it skips on a
  developer's machine, but when the environment says ``CI=true`` that is a *failure*:
  CI sets Docker up (``.ci/docker-setup.sh``), so a missing engine there is a broken set-up,
  not a reason to go green.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from docker_summary import DOCKER_SKIP

from derivative._errors import SandboxUnavailable
from derivative.forge.sandbox._process import ProcessLauncher
from derivative.forge.sandbox._sandbox import Launcher, Limits, Sandbox, open_sandbox


def in_ci() -> bool:
    return (os.environ.get("CI") or "").strip().lower() in {"1", "true", "yes", "on"}


@pytest.fixture
def write_candidate(tmp_path: Path) -> Callable[..., Path]:
    counter = iter(range(1_000_000))

    def write(source: str, name: str = "cand") -> Path:
        folder = tmp_path / f"candidate{next(counter)}"
        folder.mkdir()
        path = folder / f"{name}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def process_launcher() -> ProcessLauncher:
    return ProcessLauncher()


@pytest.fixture(scope="session")
def docker_launcher() -> Launcher:
    from derivative.forge.sandbox._docker import DockerLauncher

    try:
        return DockerLauncher.connect()
    except SandboxUnavailable as exc:
        message = f"{DOCKER_SKIP}: {exc}"
        if in_ci():
            pytest.fail(f"{message} (CI=true: CI must provide Docker, see .ci/docker-setup.sh)")
        pytest.skip(message)


@pytest.fixture
def sandbox_factory(
    write_candidate: Callable[..., Path],
) -> Iterator[Callable[..., Sandbox]]:
    """``make(source, launcher, limits=None, **kw)``: a started sandbox, closed afterwards.

    The runtime guard is off unless ``guard=True`` is passed: these tests probe the OS
    boundary and the channel alone, with candidates that do what the guard refuses."""
    made: list[Sandbox] = []

    def make(source: str, launcher: Launcher, limits: Limits | None = None,
             **kwargs: Any) -> Sandbox:
        path = write_candidate(source)
        kwargs.setdefault("guard", False)
        sandbox = open_sandbox(path, contract_sha256="0" * 64, launcher=launcher,
                               limits=limits or Limits(call_timeout=10.0), **kwargs)
        made.append(sandbox)
        sandbox.start()
        return sandbox

    yield make
    for sandbox in made:
        sandbox.close()


@pytest.fixture(params=["process", pytest.param("docker", marks=pytest.mark.docker)])
def launcher(request: pytest.FixtureRequest) -> Launcher:
    """Each backend in turn (the Docker one under the rules of ``docker_launcher``)."""
    name = "process_launcher" if request.param == "process" else "docker_launcher"
    chosen: Launcher = request.getfixturevalue(name)
    return chosen
