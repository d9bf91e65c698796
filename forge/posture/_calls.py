"""Calls in one posture analysis, and the code held in strings.

Dynamic attribute names (``getattr``/``setattr`` and ``operator`` callables with computed
names, ``__setattr__``), three-argument ``type()``, format strings that reach attributes
through their fields, and code generation: ``eval``/``exec``/``compile`` of a literal are
validated as nested code (``nested``), of anything else refused; string annotations are
nested code too (``typing.get_type_hints`` evaluates them).
"""

from __future__ import annotations

import ast
import re
import string

from ._base import Context
from ._scope import Scope
from ._symbols import _Symbols

__all__: list[str] = []


class _Calls(_Symbols):
    """Calls and code in strings (see the module docstring)."""

    def check_call(self, node: ast.Call) -> None:
        scope = self.scope(node)
        p = self.policy
        for sym in self.syms_of(node.func, scope):
            if sym.kind == "builtin":
                b = sym.name
                if b in p.dynamic_attribute_functions:
                    self.check_dynamic_builtin(node, b, scope)
                if b in p.code_generation_builtins:
                    self.check_code_generation(node, b)
                if b == "type" and len(node.args) == 3:
                    self.report(
                        "recursive_control",
                        node,
                        "type() with three arguments builds a class from run-time data",
                    )
            elif sym.dotted in p.dynamic_attribute_functions:
                self.check_dynamic_callable(node, sym.dotted)
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr in ("format", "format_map") and (node.args or node.keywords):
                self.check_format(node, func)
            elif func.attr in ("__setattr__", "__delattr__"):
                self.check_dunder_setattr(node, func.attr)

    def check_dynamic_builtin(self, node: ast.Call, builtin: str, scope: Scope) -> None:
        why = self.policy.dynamic_attribute_functions[builtin]
        computed = f"{builtin} with a computed attribute name: {why}"
        if any(isinstance(a, ast.Starred) for a in node.args[:2]) or len(node.args) < 2:
            self.report("builtin_policy", node, computed)
            return
        name_node = node.args[1]
        name = self.literal_name(name_node)
        if name is None:
            self.report("builtin_policy", node, computed)
            return
        store = builtin != "getattr"
        problem = self.attr_problem(name, store)
        if problem is not None:
            self.report("attribute_access", name_node, f"{builtin}(..., {name!r}): {problem}")
        if store:
            for sym in self.syms_of(node.args[0], scope):
                if sym.kind in ("module", "member", "derived"):
                    self.report(
                        "attribute_access",
                        node,
                        f"{builtin} on {sym.dotted} changes a module or class the worker shares",
                    )

    def check_dynamic_callable(self, node: ast.Call, dotted: str) -> None:
        reason = self.policy.dynamic_attribute_functions[dotted]
        args = node.args if dotted.endswith("attrgetter") else node.args[:1]
        if not args or (node.keywords and not dotted.endswith("methodcaller")):
            self.report("attribute_access", node, f"{dotted} with a computed name: {reason}")
            return
        for arg in args:
            name = self.literal_name(arg)
            if name is None:
                self.report("attribute_access", node, f"{dotted} with a computed name: {reason}")
                continue
            for part in name.split("."):
                problem = self.attr_problem(part, store=False)
                if problem is not None:
                    self.report("attribute_access", arg, f"{dotted}({name!r}): {problem}")

    def check_dunder_setattr(self, node: ast.Call, method: str) -> None:
        index = -2 if method == "__setattr__" else -1
        name_node = node.args[index] if len(node.args) >= -index else None
        name = self.literal_name(name_node)
        if name is None or any(isinstance(a, ast.Starred) for a in node.args):
            self.report(
                "attribute_access",
                node,
                f"{method} with a computed attribute name can rewrite any attribute",
            )
            return
        problem = self.attr_problem(name, store=True)
        if problem is not None and name_node is not None:
            self.report("attribute_access", name_node, f"{method}(..., {name!r}): {problem}")

    def check_code_generation(self, node: ast.Call, builtin: str) -> None:
        source = node.args[0] if node.args else None
        literal: str | None = None
        if isinstance(source, ast.Constant):
            if isinstance(source.value, str):
                literal = source.value
            elif isinstance(source.value, bytes):
                literal = source.value.decode("utf-8", "replace")
        if literal is None:
            self.report(
                "recursive_control",
                node,
                f"{builtin} runs code built at run time, which no static check can see",
            )
            return
        text = literal if builtin != "eval" else literal.strip()
        self.nested(text, node, f"the code that {builtin} runs", keep_syntax_errors=True)

    def nested(self, text: str, node: ast.AST, label: str, keep_syntax_errors: bool) -> None:
        """Validate code held in a string literal; report its findings at ``node``."""
        if self.ctx.nesting >= self.policy.limits.max_exec_nesting:
            self.report(
                "recursive_control",
                node,
                f"{label} holds code that holds code, deeper than the policy follows",
            )
            return
        from ._scan import analyse_text

        inner = Context(self.policy, self.ctx.file, self.ctx.local_modules, self.ctx.nesting + 1)
        found = analyse_text(text, inner)
        if not keep_syntax_errors and any(f.strategy == "ast_structure" for f in found):
            return  # not code after all (a label, a Literal value): nothing will evaluate it
        for f in found:
            self.report(f.strategy, node, f"in {label} (its line {f.line}): {f.message}")

    def check_annotation(self, annotation: ast.expr) -> None:
        """String annotations are code: ``typing.get_type_hints`` evaluates them.

        ``functools.singledispatch`` calls it on the functions it registers, so a
        string annotation such as ``"__import__('os').system('id')"`` runs at import.
        """
        for node in ast.walk(annotation):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
                label = "a string annotation, which typing.get_type_hints evaluates"
                self.nested(node.value.strip(), node, label, keep_syntax_errors=False)

    def check_format(self, node: ast.Call, func: ast.Attribute) -> None:
        receiver = func.value
        if not (isinstance(receiver, ast.Constant) and isinstance(receiver.value, str)):
            self.report(
                "attribute_access",
                node,
                f"{func.attr} on a string computed at run time can read any attribute through "
                "fields such as {0.__globals__}; use an f-string or a literal format string",
            )
            return
        for field_name in _format_fields(receiver.value):
            for attr in re.findall(r"\.([^.\[\]]+)", field_name):
                problem = self.attr_problem(attr, store=False)
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
