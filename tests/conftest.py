"""Suite-wide test configuration: Hypothesis profiles and the marker registry.

Two Hypothesis profiles:

- ``dev`` (the default on a developer's machine): random exploration and a modest
  example count so the suite stays quick; like ``ci``, no deadline and no too-slow
  health check, since a test's outcome must not depend on the machine's speed (a
  loaded 2-core machine makes a one-second deadline fail at random);
- ``ci`` (loaded when the environment variable ``CI`` is true): derandomised, so
  the same commit gives the same examples and a red CI run can be reproduced, no
  deadline and no too-slow health check (timing flakes are not bugs), and the
  failure blob printed so that a failure can be replayed with ``@reproduce_failure``.

``HYPOTHESIS_PROFILE=name`` overrides the choice.  Tests never set ``derandomize``
themselves; they may lower or raise ``max_examples`` with ``@settings``.

Golden snapshots go through the ``golden`` fixture (``Golden``), the one place that
reads ``DERIVATIVE_REGEN_GOLDEN``: true by the same rule as ``CI`` (``1``, ``true``,
``yes``, ``on``), it rewrites the snapshots instead of comparing them.  Everything
else a golden test asserts (the hand-derived expectations, schema validation,
certificate verification) runs in both modes.

The end of the report counts the Docker tests that were skipped and says how to run them
(``docker_summary.py``), so that a run without Docker never passes for the whole suite.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from docker_summary import pytest_terminal_summary
from hypothesis import HealthCheck, settings

__all__ = ["pytest_terminal_summary"]  # the count of skipped Docker tests (docker_summary.py)

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"

# Both start from Hypothesis's plain defaults: under CI=true Hypothesis's own default is
# already a derandomised profile, which "dev" must not inherit.
_BASE = settings.get_profile("default")
settings.register_profile(
    "dev",
    parent=_BASE,
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
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


REGEN_GOLDEN_ENV = "DERIVATIVE_REGEN_GOLDEN"


def regenerating_golden() -> bool:
    """Whether this run rewrites golden snapshots (``DERIVATIVE_REGEN_GOLDEN`` is true)."""
    return _truthy(os.environ.get(REGEN_GOLDEN_ENV))


@dataclass
class Golden:
    """Byte-for-byte snapshots: compared, or rewritten when ``regen`` is on.

    Only the snapshot comparison depends on the mode: a test asserts everything else
    (what does not live in the snapshot) before calling ``check``, so a regenerating
    run still fails on a broken expectation.  Rewritten files are reported as
    warnings, to be reviewed in the diff."""

    regen: bool
    rewritten: list[Path] = field(default_factory=list)

    def check(self, path: Path, actual: str) -> None:
        where = f"{path.parent.name}/{path.name}"
        if self.regen:
            before = path.read_text(encoding="utf-8") if path.exists() else None
            if before != actual:
                path.write_text(actual, encoding="utf-8")
                self.rewritten.append(path)
                warnings.warn(f"golden snapshot rewritten: {where}", stacklevel=2)
            return
        assert path.exists(), f"{where} is missing: run with {REGEN_GOLDEN_ENV}=1 to create it"
        expected = path.read_text(encoding="utf-8")
        assert actual == expected, (
            f"{where} differs; if the change is intended, regenerate with "
            f"{REGEN_GOLDEN_ENV}=1 and review the diff"
        )


@pytest.fixture
def golden() -> Golden:
    """Compare (or, with ``DERIVATIVE_REGEN_GOLDEN=1``, rewrite) golden snapshots."""
    return Golden(regenerating_golden())


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
    regen = f"; golden snapshots: rewritten ({REGEN_GOLDEN_ENV})" if regenerating_golden() else ""
    return f"hypothesis profile: {active_profile()}{regen}"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top folder (where pyproject.toml is)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def examples_dir() -> Path:
    """The bundled example specs."""
    return EXAMPLES
