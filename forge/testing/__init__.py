"""The property-test engine: strategies, oracle, evidence, callers and the pytest plugin.

This room turns a contract's obligations into Hypothesis tests and judges every call with
the evaluator.  It knows nothing of sandboxes: a ``Caller`` is all it needs, and the
sandboxed caller lives in ``forge.run``.  Other rooms import only the names below.
"""

from __future__ import annotations

from ._callers import Caller, ConcurrentCaller, EngineError, Interleaving, Ref
from ._counting import count_checks
from ._engine import Engine, EngineOptions
from ._evidence import ObligationEvidence, RunEvidence
from ._inprocess import InProcessCaller, load_target
from ._options import TestOptions
from ._oracle import Outcome, Raised, describe, describe_outcome
from ._strategies import REAL_LIMIT, Box, analyse, apply_alphabet, fold_length, spec_alphabet
from ._whitebox import Constants, constants_of, hints_of

__all__ = [
    "REAL_LIMIT",
    "Box",
    "Caller",
    "ConcurrentCaller",
    "Constants",
    "Engine",
    "EngineError",
    "EngineOptions",
    "InProcessCaller",
    "Interleaving",
    "ObligationEvidence",
    "Outcome",
    "Raised",
    "Ref",
    "RunEvidence",
    "TestOptions",
    "analyse",
    "apply_alphabet",
    "constants_of",
    "count_checks",
    "describe",
    "describe_outcome",
    "fold_length",
    "hints_of",
    "load_target",
    "spec_alphabet",
]
