"""``attribute_access`` in one posture analysis: attributes read, written and matched.

Denied and unusual dunder attributes, private attributes of standard-library objects
(``enum.Enum._convert_`` reads any module by name), assignments to modules (the worker
shares the standard library's; a candidate's own would change its globals where no
check follows), members the policy does not allow, reflection and code-generation
members, methods that take attribute names (``__setattr__``) taken as values, and
template methods (``str.format``): only on a literal template, whose fields are read here.
"""

from __future__ import annotations

import ast
import re
import string

from ._scope import BUILTINS_NS, _is_dunder
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
        for sym in self.syms_here(node.value):
            if sym == BUILTINS_NS or sym.kind == "builtin":
                continue
            self.check_attribute_of(node, sym.kind, sym.module, sym.dotted, store, where)
        if store:
            return
        if node.attr in self._name_methods and id(node) not in self._call_funcs:
            self.report(
                "attribute_access",
                where,
                f"{node.attr} taken as a value: the attribute names it is called with cannot "
                "be checked",
            )
        if node.attr in self.policy.template_attributes:
            self.check_template(node, where)

    def check_attribute_of(
        self, node: ast.Attribute, kind: str, module: str, dotted_base: str, store: bool,
        where: tuple[int, int],
    ) -> None:
        """``node.attr`` read or written on something that denotes ``dotted_base``."""
        p = self.policy
        attr = node.attr
        dotted = f"{dotted_base}.{attr}"
        if store and kind == "module":
            shared = "a module the worker shares" if not self.is_local(module) else (
                "the candidate's module's globals, where no check follows"
            )
            self.report("attribute_access", where, f"assigning {dotted} changes {shared}")
            return
        if self.is_local(dotted):
            return
        if kind == "module" and self.module_allowed(module) and not self.member_allowed(
            module, attr
        ):
            self.report("import_policy", where, self.member_message(module, attr))
        root = module.partition(".")[0]
        if (
            (kind in ("member", "derived") or (kind == "instance" and not store))
            and attr.startswith("_")
            and not _is_dunder(attr)
            and attr not in p.underscore_api
            and self.is_module_name(root)
        ):
            self.report(
                "import_policy",
                where,
                f"{dotted} is private to {root}; the policy allows its public API only",
            )
        if dotted in p.reflection_members:
            self.report("reflection", where, f"{dotted}: {p.reflection_members[dotted]}")
        if dotted in p.code_generation_members:
            why = p.code_generation_members[dotted]
            self.report("recursive_control", where, f"{dotted}: {why}")
        if store and kind != "instance":
            self.report(
                "attribute_access",
                where,
                f"assigning {dotted} changes a module or class that the worker shares",
            )

    def check_template(self, node: ast.Attribute, where: tuple[int, int]) -> None:
        """``.format``/``.format_map``: only on a literal template, whose fields are checked."""
        receiver = node.value
        if not (isinstance(receiver, ast.Constant) and isinstance(receiver.value, str)):
            self.report(
                "attribute_access",
                where,
                f"{node.attr} on a template that is not a literal: "
                f"{self.policy.template_attributes[node.attr]}; use an f-string or a literal "
                "template",
            )
            return
        for field_name in _format_fields(receiver.value):
            for attr in re.findall(r"\.([^.\[\]]+)", field_name):
                problem = self.name_problem(attr, store=False)
                if problem is not None:
                    self.report(
                        "attribute_access",
                        receiver,
                        f"the format field {{{field_name}}} reads {problem}",
                    )


def _format_fields(text: str, depth: int = 0) -> list[str]:
    """The field names of a format string, nested specs included (empty if malformed)."""
    out: list[str] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return out
    for _literal, field_name, spec, _conversion in parsed:
        if field_name:
            out.append(field_name)
        if spec and depth < 2:
            out.extend(_format_fields(spec, depth + 1))
    return out
