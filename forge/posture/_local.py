"""The candidate's other modules, read on demand for the checks that cross files.

A type alias can be imported from a sibling (``from hints import HINT``), and a name a
sibling does not define makes ``from sibling import name`` raise an ImportError whose
message names the sibling's file.  Each module is validated on its own; these questions
need a look at another one: ``LocalModules`` reads its source (through a function the
caller provides), builds its scopes once and answers from them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ._base import Context
from ._policy import Policy

if TYPE_CHECKING:
    from ._scan import _Analysis

__all__ = ["LocalModules"]

_MAX_DEPTH = 60


class LocalModules:
    """The candidate's modules by dotted name: ``source(name)`` is the text, or None."""

    def __init__(
        self,
        source: Callable[[str], str | None],
        policy: Policy,
        local_modules: frozenset[str],
    ) -> None:
        self._source = source
        self._policy = policy
        self._local_modules = local_modules
        self._analyses: dict[str, _Analysis | None] = {}
        self._asking: set[tuple[str, str]] = set()

    def analysis(self, module: str) -> _Analysis | None:
        """The scopes of ``module`` (None when it has no readable, parsable source)."""
        if module not in self._analyses:
            from ._scan import prepare

            text = self._source(module)
            self._analyses[module] = None  # a module that asks about itself sees "unknown"
            if text is not None:
                ctx = Context(self._policy, module, self._local_modules, modules=self)
                self._analyses[module] = prepare(text, ctx)
        return self._analyses[module]

    def is_module(self, dotted: str) -> bool:
        """Whether the candidate has a module (a source file) called ``dotted``."""
        return self._source(dotted) is not None

    def defines(self, module: str, name: str) -> bool | None:
        """Whether ``from module import name`` finds it (None: the module cannot be read)."""
        analysis = self.analysis(module)
        if analysis is None:
            return None
        if name in analysis.module_scope.bindings:
            return True
        return self._source(f"{module}.{name}") is not None  # a submodule

    def static_problem(self, module: str, name: str, depth: int) -> str | None:
        """Whether ``module.name`` is a class, a type or an import (see ``_types.py``)."""
        if depth > _MAX_DEPTH:
            return f"{module}.{name}: type aliases chain through too many modules"
        key = (module, name)
        if key in self._asking:
            return None  # a cycle adds nothing new
        analysis = self.analysis(module)
        if analysis is None:
            return f"the source of {module} cannot be read to check {name}"
        self._asking.add(key)
        try:
            return analysis.module_name_static_problem(name, depth + 1)
        finally:
            self._asking.discard(key)
