"""What ``derivative build`` was asked for: one frozen, keyword-only options object."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..sandbox import BackendName, Limits

DEFAULT_EXAMPLES = 100
"""Examples per obligation; the CLI's ``--examples`` default reads this."""

DEFAULT_MAX_REPAIRS = 3


@dataclass(frozen=True, kw_only=True)
class BuildOptions:
    """Exactly one of ``candidate``, ``generator`` or ``synth`` names where code comes from."""

    candidate: str | None = None
    """A ``.py`` file or a folder (a package, or a folder with ``module``)."""
    generator: tuple[str, ...] | None = None
    """A program (argv) that writes candidate files; see ``_generate.py``."""
    synth: bool = False
    """Use the built-in synthesiser for contracts whose functions pin their result."""
    module: str | None = None
    sandbox: BackendName = "auto"
    policy: str = "default"
    out: str | None = None
    """The build folder; default ``derivative-builds/<spec>-<time>-<id>`` under the cwd."""
    max_repairs: int = DEFAULT_MAX_REPAIRS
    examples: int = DEFAULT_EXAMPLES
    seed: int | None = None
    limits: Limits = field(default_factory=Limits)
    image: str | None = None
    state: str | None = None
    """The state folder holding the ledger; default: the user's data directory."""
    package: bool = True
    """Write a package for a ``verified`` build."""
    generator_timeout: float = 300.0
    require_coverage: bool = False
    """A candidate with executable lines no judged input ran is ``validation_failed``
    (those lines listed); by default the ``coverage`` gate only reports them."""

    def source_count(self) -> int:
        return sum((self.candidate is not None, self.generator is not None, self.synth))
