"""What the type checker resolved: ``TypeInfo`` and the ``Signature`` of each callable.

Every back-end reads types from here: the scope of an obligation, the type of
``result``, the names a ``count`` predicate sees, the type of any expression
(``type_of``), and the chains of exception classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field

from derivative._ast import Contract, Expr, Obligation, SystemDecl
from derivative._builtins import BUILTIN_EXCEPTIONS, builtin_exception_mro
from derivative._errors import SpecErrors
from derivative._record import record
from derivative._typecheck_base import Ctx, State
from derivative._typecheck_expr import ExprChecker
from derivative._types import TEnum, Ty
from derivative._values import Value


@record
class Signature:
    """A function's or operation's parameters ``(name, type, from_op)`` and result type."""

    params: tuple[tuple[str, Ty, str | None], ...]
    returns: Ty


@record(frozen=False)
class TypeInfo:
    """What the checker resolved; every back-end reads types from here."""

    contract: Contract
    enums: dict[str, TEnum] = field(default_factory=dict)
    exceptions: dict[str, str] = field(default_factory=dict)
    """Declared exceptions: name -> base name (built-ins are not listed)."""
    const_types: dict[str, Ty] = field(default_factory=dict)
    const_values: dict[str, Value] = field(default_factory=dict)
    param_types: dict[str, Ty] = field(default_factory=dict)
    signatures: dict[str, Signature] = field(default_factory=dict)
    """Key: function name or ``System.op``."""
    _callables_cache: dict[str | None, dict[str, Signature]] = field(
        default_factory=dict, repr=False, compare=False
    )

    # ------------------------------------------------------------------ scopes

    def scope(self, obligation: Obligation) -> dict[str, Ty]:
        """Names visible in ``obligation``'s expression, with their types.

        Requirements: params and consts.  Function/operation clauses (requires,
        ensures, raises): the parameters and consts.  Examples and invariants: consts
        (a ``count`` predicate's names come from ``count_scope``).
        """
        names = dict(self.const_types)
        if obligation.kind == "requirement":
            names.update(self.param_types)
        elif obligation.kind in ("requires", "ensures", "raises") and obligation.owner:
            sig = self.signatures.get(obligation.owner)
            if sig is not None:
                names.update({n: t for n, t, _ in sig.params})
        return names

    def result_type(self, obligation: Obligation) -> Ty | None:
        """The type of ``result`` in ``obligation`` (ensures only), else None."""
        if obligation.kind != "ensures" or obligation.owner is None:
            return None
        sig = self.signatures.get(obligation.owner)
        return None if sig is None else sig.returns

    def count_scope(self, system: str, op: str) -> tuple[dict[str, Ty], Ty]:
        """Names visible in ``count(op where P)`` of ``system``, and ``result``'s type."""
        sig = self.signatures[f"{system}.{op}"]
        names = dict(self.const_types)
        names.update({n: t for n, t, _ in sig.params})
        return names, sig.returns

    def type_of(
        self,
        expr: Expr,
        scope: Mapping[str, Ty],
        result: Ty | None = None,
        *,
        system: str | None = None,
    ) -> Ty:
        """The type of ``expr`` with ``scope`` visible; ``SpecErrors`` if ill-typed.

        ``system`` gives the system whose operations ``count(...)`` may name; spec
        functions (and operations of ``system``) may be called, as in examples.
        """
        state = State(self)
        ctx = Ctx(
            file="",
            names=dict(scope),
            result=result,
            result_error=None if result is not None else "`result` is not available here",
            system=self._system(system) if system else None,
            callables=self._callables(system),
            count_allowed=system is not None,
        )
        ty = ExprChecker(state, ctx).check(expr)
        if state.errors:
            raise SpecErrors(state.errors)
        return ty

    # ------------------------------------------------------------------ exceptions

    def is_exception(self, name: str) -> bool:
        return name in self.exceptions or name in BUILTIN_EXCEPTIONS

    def exception_chain(self, name: str) -> tuple[str, ...]:
        """Class names from ``name`` through its bases to ``BaseException``."""
        out: list[str] = []
        while name in self.exceptions and name not in out:
            out.append(name)
            name = self.exceptions[name]
        return (*out, *builtin_exception_mro(name))

    # ------------------------------------------------------------------ helpers

    def _system(self, name: str) -> SystemDecl | None:
        for s in self.contract.systems():
            if s.name == name:
                return s
        return None

    def _callables(self, system: str | None) -> dict[str, Signature]:
        cached = self._callables_cache.get(system)
        if cached is not None:
            return cached
        out = {
            f.name: self.signatures[f.name]
            for f in self.contract.functions()
            if f.name in self.signatures
        }
        for s in self.contract.systems():
            if system is None or s.name == system:
                for op in s.operations:
                    if op.qualname in self.signatures:
                        out.setdefault(op.name, self.signatures[op.qualname])
        self._callables_cache[system] = out
        return out

