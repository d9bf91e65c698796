"""The certificates layer: infeasibility certificates and their independent checker.

``build_certificate`` turns a minimal core found by the solver into a
``derivative.certificate/v1`` document (docs/cli.md) after checking it;
``verify`` checks such a document without trusting it (and without importing the
solver package).  ``encode_script`` is the SMT-LIB printer both use;
``range_obligation`` makes the synthetic "``x`` lies in its declared range"
obligations a core may contain, with the ids the verifier expects.
"""

from __future__ import annotations

from ._build import CertificateError, build_certificate
from ._formula import core_formula, range_obligation
from ._model import CERTIFICATE_FORMAT, KINDS, Certificate
from ._smtlib import CoreScope, EncodingError, encode_script
from ._solvers import SolverRun, run_solvers
from ._verify import VerifyResult, verify

__all__ = [
    "CERTIFICATE_FORMAT",
    "KINDS",
    "Certificate",
    "CertificateError",
    "CoreScope",
    "EncodingError",
    "SolverRun",
    "VerifyResult",
    "build_certificate",
    "core_formula",
    "encode_script",
    "range_obligation",
    "run_solvers",
    "verify",
]
