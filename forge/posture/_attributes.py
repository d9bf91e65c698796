"""``attribute_access`` in one posture analysis: attributes read, written and matched.

Denied and unusual dunder attributes, assignments to modules and classes the worker
shares, members the policy does not allow, reflection and code-generation members, and
dynamic attribute functions (``operator.attrgetter``...) used as values.
"""

from __future__ import annotations

import ast

from ._scope import BUILTINS_NS
from ._symbols import _Symbols

__all__: list[str] = []


class _Attributes(_Symbols):
    """Attributes (see the module docstring)."""

    def attr_position(self, node: ast.Attribute) -> tuple[int, int]:
        line = node.end_lineno or node.lineno
        end = self.column(line, node.end_col_offset or 0)
        return line, max(end - len(node.attr), 1)

    def check_attribute(self, node: ast.Attribute) -> None:
        store = not isinstance(node.ctx, ast.Load)
        where = self.attr_position(node)
        problem = self.attr_problem(node.attr, store)
        if problem is not None:
            self.report("attribute_access", where, problem)
        scope = self.scope(node)
        base = self.syms_of(node.value, scope)
        p = self.policy
        for sym in base:
            if sym == BUILTINS_NS or sym.kind == "builtin":
                continue
            dotted = f"{sym.dotted}.{node.attr}"
            if self.is_local(dotted):
                continue
            if (
                sym.kind == "module"
                and self.module_allowed(sym.module)
                and not self.member_allowed(sym.module, node.attr)
            ):
                self.report("import_policy", where, self.member_message(sym.module, node.attr))
            if dotted in p.reflection_members:
                self.report("reflection", where, f"{dotted}: {p.reflection_members[dotted]}")
            if dotted in p.code_generation_members:
                self.report(
                    "recursive_control", where, f"{dotted}: {p.code_generation_members[dotted]}"
                )
            if store:
                self.report(
                    "attribute_access",
                    where,
                    f"assigning {dotted} changes a module or class that the worker shares",
                )
        if node.attr in self._dynamic_tails and id(node) not in self._call_funcs:
            for sym in self.syms_of(node, scope):
                if sym.dotted in p.dynamic_attribute_functions:
                    self.report(
                        "attribute_access",
                        where,
                        f"{sym.dotted} is used as a value, so its attribute name cannot be checked",
                    )

    def check_match_class(self, node: ast.MatchClass) -> None:
        for attr in node.kwd_attrs:
            problem = self.attr_problem(attr, store=False)
            if problem is not None:
                self.report("attribute_access", node, f"a class pattern reads {problem}")
