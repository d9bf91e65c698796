"""Suite-wide test configuration: Hypothesis profiles and the marker registry.

Two Hypothesis profiles:

- ``dev`` (the default on a developer's machine): random exploration, a modest
  example count so the suite stays quick, and a generous deadline because these
  machines are noisy;
- ``ci`` (loaded when the environment variable ``CI`` is true): derandomised, so
  the same commit gives the same examples and a red CI run can be reproduced, no
  deadline and no too-slow health check (timing flakes are not bugs), and the
  failure blob printed so that a failure can be replayed with ``@reproduce_failure``.

``HYPOTHESIS_PROFILE=name`` overrides the choice.  Tests never set ``derandomize``
themselves; they may lower or raise ``max_examples`` with ``@settings``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"

# Both start from Hypothesis's plain defaults: under CI=true Hypothesis's own default is
# already a derandomised profile, which "dev" must not inherit.
_BASE = settings.get_profile("default")
settings.register_profile("dev", parent=_BASE, max_examples=50, deadline=1000)
settings.register_profile(
    "ci",
    parent=_BASE,
    derandomize=True,
    database=None,  # derandomised runs gain nothing from saved examples
    deadline=None,
    print_blob=True,
    max_examples=50,
    suppress_health_check=[HealthCheck.too_slow],  # shared 2-core machines are noisy
)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def active_profile() -> str:
    """The Hypothesis profile for this run (see the module docstring)."""
    explicit = os.environ.get("HYPOTHESIS_PROFILE")
    if explicit:
        return explicit
    return "ci" if _truthy(os.environ.get("CI")) else "dev"


settings.load_profile(active_profile())

MARKERS = {
    "slow": "takes more than a few seconds (builds a wheel, starts processes)",
    "docker": "needs a Docker engine and the sandbox image",
}


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")


def pytest_report_header(config: pytest.Config) -> str:
    return f"hypothesis profile: {active_profile()}"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top folder (where pyproject.toml is)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def examples_dir() -> Path:
    """The bundled example specs."""
    return EXAMPLES
