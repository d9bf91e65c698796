"""derivative: check requirement sets for contradictions, test code against them.

This module is the narrow public API (docs/api.md): ``load`` a requirement set, then
``check`` it, ``run_candidate`` an implementation in a sandbox, ``generate_tests`` or
``run_tests`` for it, ``verify_certificate``; each with one frozen options object.
Everything else lives in underscore modules and in the layers (``derivative.grammar``,
``derivative.solver``, ``derivative.certificates``, ``derivative.forge``), which are
internal.

The names below are re-exported *lazily* (PEP 562 module ``__getattr__``): importing
``derivative`` or one layer such as ``derivative.grammar`` must not drag in the
solver, Z3 or the build pipeline, both to keep the dependency rules honest and to
keep ``derivative parse`` and ``import derivative.grammar`` fast.

>>> import derivative
>>> loaded = derivative.parse_text('spec s version 1\\nparam x: int\\nrequirement: x > 0\\n')
>>> loaded.name, loaded.version
('s', 1)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from derivative._version import __version__

# public name -> module that defines it (imported on first access)
_EXPORTS: dict[str, str] = {
    "DerivativeError": "derivative._errors",
    "ExitCode": "derivative._errors",
    "SpecError": "derivative._errors",
    "SpecErrors": "derivative._errors",
    "SourcePos": "derivative._errors",
    "UsageError": "derivative._errors",
    "Contract": "derivative._ast",
    "Obligation": "derivative._ast",
    "contract_identity": "derivative._canon",
    "evaluate": "derivative._eval",
    "LoadedContract": "derivative.api",
    "load": "derivative.api",
    "parse_text": "derivative.api",
    "contract_json": "derivative.api",
    # the operations and their options (docs/api.md)
    "check": "derivative.api",
    "certify": "derivative.api",
    "run_candidate": "derivative.api",
    "generate_tests": "derivative.api",
    "run_tests": "derivative.api",
    "verify_certificate": "derivative.api",
    "VerifyOptions": "derivative.api",
    "CheckOptions": "derivative.solver",
    "CheckResult": "derivative.solver",
    "RunOptions": "derivative.forge.run",
    "RunReport": "derivative.forge.run",
    "TestOptions": "derivative.forge.testing",
    "RunEvidence": "derivative.forge.testing",
    "VerifyResult": "derivative.certificates",
    "build": "derivative.api",
    "ledger_status": "derivative.api",
    "BuildOptions": "derivative.forge.build",
    "BuildReport": "derivative.forge.build",
    "verify_package": "derivative.api",
    "import_requirements": "derivative.api",
    "ImportOptions": "derivative.importers",
    "ImportResult": "derivative.importers",
    # audit memory: one record per top-level call
    "subscribe": "derivative._audit",
    "unsubscribe": "derivative._audit",
}

__all__ = [
    "BuildOptions",
    "BuildReport",
    "CheckOptions",
    "CheckResult",
    "Contract",
    "DerivativeError",
    "ExitCode",
    "ImportOptions",
    "ImportResult",
    "LoadedContract",
    "Obligation",
    "RunEvidence",
    "RunOptions",
    "RunReport",
    "SourcePos",
    "SpecError",
    "SpecErrors",
    "TestOptions",
    "UsageError",
    "VerifyOptions",
    "VerifyResult",
    "__version__",
    "build",
    "certify",
    "check",
    "contract_identity",
    "contract_json",
    "evaluate",
    "generate_tests",
    "import_requirements",
    "ledger_status",
    "load",
    "parse_text",
    "run_candidate",
    "run_tests",
    "subscribe",
    "unsubscribe",
    "verify_certificate",
    "verify_package",
]

if TYPE_CHECKING:  # static checkers see real imports; the runtime stays lazy
    from derivative._ast import Contract as Contract
    from derivative._ast import Obligation as Obligation
    from derivative._audit import subscribe as subscribe
    from derivative._audit import unsubscribe as unsubscribe
    from derivative._canon import contract_identity as contract_identity
    from derivative._errors import DerivativeError as DerivativeError
    from derivative._errors import ExitCode as ExitCode
    from derivative._errors import SourcePos as SourcePos
    from derivative._errors import SpecError as SpecError
    from derivative._errors import SpecErrors as SpecErrors
    from derivative._errors import UsageError as UsageError
    from derivative._eval import evaluate as evaluate
    from derivative.api import LoadedContract as LoadedContract
    from derivative.api import VerifyOptions as VerifyOptions
    from derivative.api import build as build
    from derivative.api import certify as certify
    from derivative.api import check as check
    from derivative.api import contract_json as contract_json
    from derivative.api import generate_tests as generate_tests
    from derivative.api import import_requirements as import_requirements
    from derivative.api import ledger_status as ledger_status
    from derivative.api import load as load
    from derivative.api import parse_text as parse_text
    from derivative.api import run_candidate as run_candidate
    from derivative.api import run_tests as run_tests
    from derivative.api import verify_certificate as verify_certificate
    from derivative.api import verify_package as verify_package
    from derivative.certificates import VerifyResult as VerifyResult
    from derivative.forge.build import BuildOptions as BuildOptions
    from derivative.forge.build import BuildReport as BuildReport
    from derivative.forge.run import RunOptions as RunOptions
    from derivative.forge.run import RunReport as RunReport
    from derivative.forge.testing import RunEvidence as RunEvidence
    from derivative.forge.testing import TestOptions as TestOptions
    from derivative.importers import ImportOptions as ImportOptions
    from derivative.importers import ImportResult as ImportResult
    from derivative.solver import CheckOptions as CheckOptions
    from derivative.solver import CheckResult as CheckResult


def __getattr__(name: str) -> Any:
    """Import the defining module of a public name on first use and cache the name."""
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'derivative' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
