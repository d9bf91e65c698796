"""``derivative build``: decide whether a candidate may be packaged, and remember it.

Candidates come from a path, a generator command or ``--synth``; each is judged through
the run room's gates, repaired within a budget, packaged only when ``verified``, and
published with its ledger record as one transaction. What produces a candidate never
certifies it: a generator's output is never evidence. Other rooms and the CLI import only
the names below.
"""

from __future__ import annotations

from ._closure import judged_digest
from ._documents import EXIT_CODES, OUTCOME_FORMAT, OutcomeDocument
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
from ._lease import BuildLease
from ._ledger import (
    LEDGER_FILE,
    STATUSES,
    BuildError,
    BuildStatus,
    Ledger,
    LedgerAnswer,
    LedgerRecord,
    default_state_dir,
    utc_now,
)
from ._options import DEFAULT_EXAMPLES, DEFAULT_MAX_REPAIRS, BuildOptions
from ._owntests import OwnTest, run_own_tests
from ._package import (
    PackageCheck,
    in_toto_statement,
    make_package,
    result_predicate,
    verify_package,
    wheel_name,
)
from ._pipeline import BuildReport, build
from ._publish import OUTCOME_FILE, publish, write_atomic
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
    "DEFAULT_EXAMPLES",
    "DEFAULT_MAX_REPAIRS",
    "EXIT_CODES",
    "GENERATION_REQUEST_FORMAT",
    "LEDGER_FILE",
    "OUTCOME_FILE",
    "OUTCOME_FORMAT",
    "STATUSES",
    "Attempt",
    "BuildError",
    "BuildLease",
    "BuildOptions",
    "BuildReport",
    "BuildStatus",
    "CommandGenerator",
    "GenerationRequest",
    "Generator",
    "GeneratorFailed",
    "Ledger",
    "LedgerAnswer",
    "LedgerRecord",
    "OutcomeDocument",
    "OwnTest",
    "PackageCheck",
    "PathCandidate",
    "Previous",
    "RepairResult",
    "StopReason",
    "SynthGenerator",
    "SynthesisRefused",
    "Validation",
    "build",
    "default_state_dir",
    "failure_signature",
    "in_toto_statement",
    "judged_digest",
    "make_attempt",
    "make_package",
    "module_name",
    "normalised_ast_hash",
    "publish",
    "repair_loop",
    "result_predicate",
    "run_own_tests",
    "structural_diff",
    "synth_source",
    "synthesize",
    "utc_now",
    "verify_package",
    "wheel_name",
    "write_atomic",
]
