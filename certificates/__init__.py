"""The certificates layer: infeasibility certificates and their independent checker.

``build_certificate`` turns a minimal core found by the solver into a
``derivative.certificate/v1`` document (docs/cli.md) after checking it;
``verify`` checks such a document without trusting it (and without importing the
solver package).  ``encode_script`` is the SMT-LIB printer both use;
``range_obligation`` makes the synthetic "``x`` lies in its declared range"
obligations a core may contain, with the ids the verifier expects.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._build import CertificateError, build_certificate
    from ._document import CERTIFICATE_FORMAT, KINDS, CertificateDocument
    from ._formula import core_formula, range_obligation
    from ._model import Certificate
    from ._smtlib import CoreScope, EncodingError, encode_script
    from ._solvers import SolverRun, run_solvers
    from ._verify import VerifyResult, verify

# Each name is imported from its module on first use: ``check`` without a certificate
# needs only ``range_obligation``, and the rest (the model, the SMT-LIB printer, the
# verifier) is most of this room's import time.
_WHERE = {
    "CertificateError": "_build",
    "build_certificate": "_build",
    "core_formula": "_formula",
    "range_obligation": "_formula",
    "CERTIFICATE_FORMAT": "_document",
    "KINDS": "_document",
    "Certificate": "_model",
    "CertificateDocument": "_document",
    "CoreScope": "_smtlib",
    "EncodingError": "_smtlib",
    "encode_script": "_smtlib",
    "SolverRun": "_solvers",
    "run_solvers": "_solvers",
    "VerifyResult": "_verify",
    "verify": "_verify",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CERTIFICATE_FORMAT",
    "KINDS",
    "Certificate",
    "CertificateDocument",
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
