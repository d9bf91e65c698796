"""``derivative build``: candidates from a path, a generator or ``--synth``, bounded repair.

What produces a candidate never certifies it: a generator's output is never evidence.
Other rooms import only the names below.
"""

from __future__ import annotations

from ._generate import (
    GENERATION_REQUEST_FORMAT,
    Attempt,
    CommandGenerator,
    GenerationRequest,
    Generator,
    GeneratorFailed,
    PathCandidate,
    Previous,
    make_attempt,
    module_name,
    normalised_ast_hash,
    structural_diff,
)

__all__ = [
    "GENERATION_REQUEST_FORMAT",
    "Attempt",
    "CommandGenerator",
    "GenerationRequest",
    "Generator",
    "GeneratorFailed",
    "PathCandidate",
    "Previous",
    "make_attempt",
    "module_name",
    "normalised_ast_hash",
    "structural_diff",
]
