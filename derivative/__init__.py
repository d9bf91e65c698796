"""derivative: check requirement sets for contradictions, test code against them.

This module is the narrow public API.  Everything else lives in underscore
modules and in the layers (``derivative.grammar``, ``derivative.solver``,
``derivative.certificates``, ``derivative.forge``), which are internal.

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
}

__all__ = [
    "Contract",
    "DerivativeError",
    "LoadedContract",
    "Obligation",
    "SourcePos",
    "SpecError",
    "SpecErrors",
    "UsageError",
    "__version__",
    "contract_identity",
    "contract_json",
    "evaluate",
    "load",
    "parse_text",
]

if TYPE_CHECKING:  # static checkers see real imports; the runtime stays lazy
    from derivative._ast import Contract as Contract
    from derivative._ast import Obligation as Obligation
    from derivative._canon import contract_identity as contract_identity
    from derivative._errors import DerivativeError as DerivativeError
    from derivative._errors import SourcePos as SourcePos
    from derivative._errors import SpecError as SpecError
    from derivative._errors import SpecErrors as SpecErrors
    from derivative._errors import UsageError as UsageError
    from derivative._eval import evaluate as evaluate
    from derivative.api import LoadedContract as LoadedContract
    from derivative.api import contract_json as contract_json
    from derivative.api import load as load
    from derivative.api import parse_text as parse_text


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
