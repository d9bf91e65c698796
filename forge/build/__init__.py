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
from ._repair import (
    CODE_ARTIFACT_FORMAT,
    RepairResult,
    StopReason,
    Validation,
    failure_signature,
    repair_loop,
)
from ._synth import SynthesisRefused, SynthGenerator, synth_source, synthesize

__all__ = [
    "CODE_ARTIFACT_FORMAT",
    "GENERATION_REQUEST_FORMAT",
    "Attempt",
    "CommandGenerator",
    "GenerationRequest",
    "Generator",
    "GeneratorFailed",
    "PathCandidate",
    "Previous",
    "RepairResult",
    "StopReason",
    "SynthGenerator",
    "SynthesisRefused",
    "Validation",
    "failure_signature",
    "make_attempt",
    "module_name",
    "normalised_ast_hash",
    "repair_loop",
    "structural_diff",
    "synth_source",
    "synthesize",
]
