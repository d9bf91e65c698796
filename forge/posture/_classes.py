"""What code defines: dunder names, class attributes, class statements, class patterns.

A class can hand an attacker hooks that the interpreter and the standard library call
with names or objects the code did not write: ``__getattr__`` and ``__setattr__`` receive
attribute names (``functools.update_wrapper`` writes what it copies through
``__setattr__``), a metaclass's ``__instancecheck__`` makes a class pattern accept any
subject, ``__reduce__`` makes ``copy`` call anything.  So defining a dunder name is an
allow-list (``allowed_dunder_definitions``; the refusals carry their reasons in
``refused_dunder_definitions``), the attribute names a class declares (``__slots__``,
``__match_args__``) must be literal, a class may not define an attribute named like a
frame or code internal (a data-class field ``gi_frame`` becomes a ``__match_args__``
entry), ``metaclass=`` may name only what the policy allows, and base classes and the
classes of positional class patterns must be classes the validator can see.
"""

from __future__ import annotations

import ast

from ._scope import Scope, _is_dunder
from ._types import _Types

__all__: list[str] = []


class _Classes(_Types):
    """Definitions and classes (see the module docstring)."""

    # -- names the code binds

    def check_binding(
        self, name: str, where: ast.AST, scope: Scope, value: ast.expr | None = None
    ) -> None:
        """A name bound in ``scope`` (by any statement): dunders and class attributes."""
        p = self.policy
        if _is_dunder(name):
            if name in p.reserved_names:
                return  # reported where the name appears (name_resolution)
            if name not in self._dunder_definitions:
                why = p.refused_dunder_definitions.get(
                    name, "it is not one of the dunder names the policy lets code define"
                )
                self.report("attribute_access", where, f"defines {name}: {why}")
            elif name in p.name_sequence_definitions:
                self.check_name_sequence(name, value, where)
        elif scope.kind == "class" and name in p.denied_attributes:
            self.report(
                "attribute_access",
                where,
                f"defines an attribute named {name} ({p.denied_attributes[name]}): class "
                "patterns and data classes read attributes by such names",
            )

    def check_name_sequence(self, name: str, value: ast.expr | None, where: ast.AST) -> None:
        """``__slots__``/``__match_args__``: a literal sequence of allowed literal names."""
        why = self.policy.name_sequence_definitions[name]
        items: list[ast.expr] | None = None
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            items = [value]
        elif isinstance(value, (ast.Tuple, ast.List, ast.Set)):
            items = list(value.elts)
        elif isinstance(value, ast.Dict) and None not in value.keys:
            items = [k for k in value.keys if k is not None]
        if items is None or not all(
            isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items
        ):
            self.report("attribute_access", where, f"{name} must be {why}")
            return
        for item in items:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                problem = self.name_problem(item.value, store=name == "__slots__")
                if problem is not None:
                    self.report("attribute_access", item, f"{name} names {problem}")

    def binding_value(self, node: ast.Name) -> ast.expr | None:
        """The value a ``Name`` target is bound to by its statement (None: not one value)."""
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Assign) and any(t is node for t in parent.targets):
            return parent.value
        if isinstance(parent, (ast.AnnAssign, ast.NamedExpr)) and parent.target is node:
            return parent.value
        return None

    # -- class statements

    def check_class(self, node: ast.ClassDef) -> None:
        """``metaclass=`` and the bases: no metaclass the policy does not name."""
        scope = self.scope(node)
        p = self.policy
        allowed = ", ".join(p.allowed_metaclasses) or "none"
        for kw in node.keywords:
            if kw.arg is None:
                self.report(
                    "reflection",
                    kw.value,
                    "class keywords from a mapping (**) can name any metaclass",
                )
            elif kw.arg == "metaclass":
                syms = self.syms_here(kw.value)
                if not syms or any(self.sym_key(s) not in p.allowed_metaclasses for s in syms):
                    self.report(
                        "reflection",
                        kw.value,
                        "a metaclass hooks into class creation, isinstance and attribute "
                        f"lookup; the policy allows {allowed}",
                    )
        for base in node.bases:
            self.check_base(base, scope)

    def check_base(self, base: ast.expr, scope: Scope) -> None:
        if isinstance(base, ast.Starred):
            self.report("reflection", base, "base classes from a sequence (*) can be anything")
            return
        builders = sorted(self.sym_key(s) for s in self.syms_here(base) if self.is_builder(s))
        if builders:
            self.report(
                "reflection",
                base,
                f"derives from {builders[0]}: it defines a metaclass, which hooks into class "
                "creation, isinstance and attribute lookup",
            )
            return
        problem = self.static_value_problem(base, scope, 0)
        if problem is not None:
            self.report(
                "reflection",
                base,
                f"a base class the validator cannot see ({problem}): a base brings its "
                "own metaclass",
            )

    def inherited_name_apis(self, func: ast.expr, depth: int = 0) -> set[str]:
        """The inherited name-taking APIs (enum's functional API) of the classes ``func`` may be."""
        out: set[str] = set()
        if depth > 8 or not isinstance(func, ast.Name):
            return out
        bindings, _ = self.resolve(self.scope(func), func.id)
        for binding in bindings:
            node = binding.node
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                for sym in self.syms_here(base):
                    spec = self.policy.name_arguments.get(self.sym_key(sym))
                    if spec is not None and spec.inherited:
                        out.add(self.sym_key(sym))
                out |= self.inherited_name_apis(base, depth + 1)
        return out

    # -- class patterns

    def check_match_class(self, node: ast.MatchClass) -> None:
        for attr in node.kwd_attrs:
            problem = self.name_problem(attr, store=False)
            if problem is not None:
                self.report("attribute_access", node, f"a class pattern reads {problem}")
        if not node.patterns:
            return
        problem = self.type_problem(node.cls, self.scope(node))
        if problem is not None:
            self.report(
                "attribute_access",
                node,
                "a class pattern reads the attributes its class's __match_args__ names; "
                f"this class is not one the validator can see ({problem})",
            )
