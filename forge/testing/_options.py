"""What ``derivative tests`` (and ``derivative.generate_tests`` / ``run_tests``) is asked for."""

from __future__ import annotations

from dataclasses import dataclass

from ._engine import EngineOptions

__all__ = ["TestOptions"]


@dataclass(frozen=True, kw_only=True)
class TestOptions:
    """Property tests of one implementation: the flags of ``derivative tests``.

    The defaults are the engine's (``EngineOptions``), so a written module, an in-process
    run and ``derivative run`` generate the same number of inputs unless told otherwise.
    """

    __test__ = False  # a pytest collecting a module that imports this must not take it for tests

    target: str
    """The implementation: a ``.py`` file, a package folder (with ``module``) or a module
    name importable from the current directory."""
    module: str | None = None
    """The module inside a package folder given as ``target``."""
    output: str | None = None
    """Where the written module goes: a relative ``.py`` target is written relative to
    its folder (``generate_tests`` only; it returns the text and writes nothing)."""
    examples: int = EngineOptions.examples
    """Generated inputs per function or operation (the solver's inputs come on top)."""
    seed: int | None = None
    """A Hypothesis seed for an in-process run (None: derandomised, reproducible)."""
    verbose: bool = False
    """An in-process run's interleavings name the bytecode instructions."""
