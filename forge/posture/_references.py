"""Where some values may go: callables that take names, class builders, module objects.

A check at the call site sees the names a call passes only when the call is written
where the callable is named.  So the callables of ``name_arguments`` (``getattr``,
``functools.update_wrapper``, ``enum.Enum`` ...) may only be called (or used as a base
class, or checked against with ``isinstance``), never handed on: ``partial(getattr, o)``
or ``getattr.__call__`` would call them with names no one checked.

Class builders (``type``, metaclasses, and ``type(x)``, which is ``type`` itself when
``x`` is a class) may also be compared, read from, kept under a plain name (whose uses
are checked in turn) or given to builtins that only look at them; anything else would
let them build a class from a namespace of run-time data somewhere out of sight.

A module object may only be the base of an attribute read: its ``repr`` names its file,
which tells the code where it runs.
"""

from __future__ import annotations

import ast

from ._scope import BUILTINS_NS, Sym
from ._symbols import _Symbols

__all__: list[str] = []

LOOKS_ONLY = frozenset(
    {
        "isinstance", "issubclass", "print", "str", "repr", "hash", "id", "format", "callable",
        "bool", "hasattr", "getattr",
    }
)
"""Builtins that only look at their arguments: a class builder passed to them goes nowhere
(``getattr`` with a literal name reads an attribute, whose value is followed in turn)."""

_LOOKING_METHODS = frozenset({"get"})
"""Methods that use an argument as a key only (``registry.get(type(x))``)."""


class _References(_Symbols):
    """Values that may only be used in certain places (see the module docstring)."""

    def check_reference(self, node: ast.expr) -> None:
        """Judge where a name, attribute or call result that denotes such a value is used."""
        if id(node) in self._annotation_nodes:
            return
        syms = self.syms_here(node)
        if not syms:
            return
        self.check_name_taker_use(node, syms)
        self.check_builder_use(node, syms)
        self.check_module_use(node, syms)

    def check_name_taker_use(self, node: ast.expr, syms: frozenset[Sym]) -> None:
        p = self.policy
        keys = sorted(
            k for k in (self.sym_key(s) for s in syms) if k in p.name_arguments
        )
        if not keys or isinstance(node, ast.Call) or self.context_ok(node, builder=False):
            return
        builtin = all(s.kind == "builtin" for s in syms if self.sym_key(s) in keys)
        self.report(
            "builtin_policy" if builtin else "attribute_access",
            node,
            f"{keys[0]} is used as a value, so the attribute names it takes cannot be checked "
            f"({p.name_arguments[keys[0]].why})",
        )

    def check_builder_use(self, node: ast.expr, syms: frozenset[Sym]) -> None:
        builders = sorted(self.sym_key(s) for s in syms if self.is_builder(s))
        if not builders or self.context_ok(node, builder=True):
            return
        self.report(
            "recursive_control",
            node,
            f"{builders[0]} is passed on as a value: wherever it ends up it can build a class "
            "from run-time data (call it, compare it, read its attributes or check "
            "isinstance against it)",
        )

    def check_module_use(self, node: ast.expr, syms: frozenset[Sym]) -> None:
        modules = sorted(s.dotted for s in syms if s.kind == "module" and s != BUILTINS_NS)
        if not modules or isinstance(node, ast.Call):
            return
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return
        self.report(
            "name_resolution",
            node,
            f"module {modules[0]} is used as a value: a module's repr names its file (where "
            "the code runs); use what you need from it by name",
        )

    # -- contexts

    def context_ok(self, node: ast.expr, builder: bool) -> bool:
        """Whether ``node``'s place lets its value go nowhere the checks cannot see."""
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Call):
            return parent.func is node or self.looking_call(parent)
        if isinstance(parent, ast.ClassDef):
            # a base class: judged by the class checks; a decorator (``@type``) would
            # replace the class by what it returns, so it is a value handed on
            return any(base is node for base in parent.bases)
        if isinstance(parent, ast.keyword):
            owner = self.parents.get(id(parent))
            return isinstance(owner, ast.ClassDef) or (
                isinstance(owner, ast.Call) and self.looking_call(owner)
            )
        if isinstance(parent, (ast.Compare, ast.FormattedValue)):
            return True
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Mod):
            return parent.right is node  # "... %r" % value formats it
        if isinstance(parent, ast.Set) or (
            isinstance(parent, (ast.Tuple, ast.List)) and isinstance(parent.ctx, ast.Load)
        ):
            return self.context_ok(parent, builder)  # the container's place decides
        if not builder:
            return False
        return self.builder_context_ok(node, parent)

    def builder_context_ok(self, node: ast.expr, parent: ast.AST | None) -> bool:
        if isinstance(parent, ast.Attribute):
            return parent.value is node  # builder methods are refused where they are read
        if isinstance(parent, ast.Subscript):
            return True  # a key, or type[...]
        if isinstance(parent, ast.Expr):
            return True
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            return parent.value is node and all(isinstance(t, ast.Name) for t in targets)
        if isinstance(parent, (ast.BoolOp, ast.IfExp)) and isinstance(node, ast.expr):
            return isinstance(parent, ast.expr) and self.context_ok(parent, builder=True)
        if isinstance(parent, ast.UnaryOp):
            return isinstance(parent.op, ast.Not)
        return False

    def looking_call(self, call: ast.Call) -> bool:
        """A call that only looks at its arguments (``isinstance``, ``print``, ``d.get``)."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in _LOOKING_METHODS:
            return True
        syms = self.syms_here(func)
        return bool(syms) and all(
            s.kind == "builtin" and s.name in LOOKS_ONLY for s in syms
        )
