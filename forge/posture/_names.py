"""Names and imports in one posture analysis.

``import_policy``, ``reflection`` and ``recursive_control`` at imports (the allow-list, its
members, reflection and code-generation modules, relative and wildcard imports), and
``builtin_policy``, ``name_resolution`` and ``reflection`` at names: builtins outside the
policy's allow-list and forbidden ones (refused even when rebound at module or class
level, which may not have run yet), interpreter dunder names outside ``dunder_names``
(``__file__`` tells the code where it runs), names that nothing in the module binds (only
a write into the module's namespace could define them), and every alias of a forbidden
object reported at its place of use.  What a name binds is judged by ``check_binding``.
"""

from __future__ import annotations

import ast

from ._classes import _Classes
from ._model import Strategy
from ._scope import BUILTIN_NAMES, BUILTINS_NS, Binding, Sym, _is_dunder

__all__: list[str] = []


class _Names(_Classes):
    """Imports and names (see the module docstring)."""

    def check_module_import(self, module: str, where: ast.AST) -> None:
        if self.is_local(module):
            return
        if not self.module_allowed(module):
            self.report(
                "import_policy",
                where,
                f"module {module} is not in the allow-list of policy {self.policy.name}",
            )
        reason = self.reflection_reason(module)
        if reason is not None:
            self.report("reflection", where, f"imports {module}: {reason}")
        reason = self.codegen_reason(module)
        if reason is not None:
            self.report("recursive_control", where, f"imports {module}: {reason}")

    def check_import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.check_module_import(alias.name, alias)
            if alias.asname in self.policy.reserved_names:
                self.report("name_resolution", alias, f"imports a module as {alias.asname}")
            bound = alias.asname or alias.name.partition(".")[0]
            self.check_binding(bound, alias, self.scope(node))

    def check_import_from(self, node: ast.ImportFrom) -> None:
        p = self.policy
        if node.level:
            if not p.relative_imports:
                shown = "." * node.level + (node.module or "")
                self.report(
                    "import_policy",
                    node,
                    f"relative import from {shown}: the policy refuses relative imports "
                    "(import the candidate's own modules by absolute name)",
                )
            return
        module = node.module or ""
        self.check_module_import(module, node)
        for alias in node.names:
            if alias.name == "*":
                if not p.wildcard_imports:
                    self.report(
                        "import_policy",
                        alias,
                        f"wildcard import from {module} hides which names are used",
                    )
                continue
            full = f"{module}.{alias.name}"
            if alias.asname in p.reserved_names:
                self.report("name_resolution", alias, f"imports {full} as {alias.asname}")
            self.check_binding(alias.asname or alias.name, alias, self.scope(node))
            if self.is_local(module):
                self.check_local_import(module, alias)
                continue
            if module == "builtins":
                continue
            if self.module_allowed(module) and not self.member_allowed(module, alias.name):
                self.report("import_policy", alias, self.member_message(module, alias.name))
            if self.is_module_name(full):
                self.check_module_import(full, alias)
                continue
            reason = p.reflection_members.get(full)
            if reason is not None:
                self.report("reflection", alias, f"imports {full}: {reason}")
            reason = p.code_generation_members.get(full)
            if reason is not None:
                self.report("recursive_control", alias, f"imports {full}: {reason}")

    def check_local_import(self, module: str, alias: ast.alias) -> None:
        """``from local import name``: the sibling must define it (or hold it as a module)."""
        modules = self.ctx.modules
        defined = None if modules is None else modules.defines(module, alias.name)
        if defined is False:
            self.report(
                "import_policy",
                alias,
                f"the candidate's module {module} defines no {alias.name}: the ImportError "
                "would name the module's file (where the code runs)",
            )

    def check_name(self, node: ast.Name) -> None:
        p = self.policy
        name = node.id
        if name in p.reserved_names:
            self.report("name_resolution", node, f"{name}: {p.reserved_names[name]}")
        scope = self.scope(node)
        if not isinstance(node.ctx, ast.Load):
            self.check_binding(name, node, scope, self.binding_value(node))
            return
        bindings, fallback = self.resolve(scope, name)
        if _is_dunder(name):
            self.check_dunder_name(node, bool(bindings), fallback)
        elif fallback and (name in BUILTIN_NAMES or name in p.forbidden_builtins):
            self.check_builtin_name(node, bindings)
        elif not bindings and self.ctx.nesting == 0:
            self.report(
                "name_resolution",
                node,
                f"{name} is never bound in this module and is not a builtin: only a write "
                "into the module's namespace could define it",
            )
        self.check_aliases(node, bindings)

    def check_dunder_name(self, node: ast.Name, bound: bool, fallback: bool) -> None:
        """Interpreter names: only those the policy names (``__name__`` ...), or our own."""
        p = self.policy
        name = node.id
        if name in p.reserved_names or name in p.dunder_names:
            return
        if name == "__import__" and fallback:
            why = p.forbidden_builtins.get(name, "imports modules by computed name")
            self.report("import_policy", node, f"__import__: {why}")
            return
        if name in p.forbidden_builtins and fallback:
            self.report("builtin_policy", node, f"{name}: {p.forbidden_builtins[name]}")
            return
        if bound and (not fallback or name in self._dunder_definitions):
            return  # the code's own (its binding was judged where it was made)
        allowed = ", ".join(p.dunder_names)
        self.report(
            "name_resolution",
            node,
            f"{name} is an interpreter name the policy does not allow (it allows {allowed})",
        )

    def check_builtin_name(self, node: ast.Name, bindings: list[Binding]) -> None:
        p = self.policy
        name = node.id
        note = ""
        if bindings:
            note = (
                f" (its binding at line {bindings[0].line} is at module or class level and "
                "may not have run yet, so the builtin is still reachable; use another name)"
            )
        if name in p.forbidden_builtins:
            self.report("builtin_policy", node, f"{name}: {p.forbidden_builtins[name]}{note}")
        elif name not in self._allowed_builtins:
            self.report(
                "builtin_policy",
                node,
                f"{name} is not one of the builtins policy {p.name} allows{note}",
            )

    def check_aliases(self, node: ast.Name, bindings: list[Binding]) -> None:
        """A name bound to a forbidden object is reported where it is used."""
        name = node.id
        grouped: dict[tuple[Strategy, str], tuple[set[str], set[int]]] = {}
        for binding in bindings:
            for sym in self.binding_syms(binding, 0):
                for strategy, what, reason in self.alias_problems(binding, sym):
                    whats, lines = grouped.setdefault((strategy, reason), (set(), set()))
                    whats.add(what)
                    lines.add(binding.line)
        for (strategy, reason), (whats, lines) in sorted(grouped.items()):
            listed = sorted(whats)
            what = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " or " + listed[-1]
            at = ", ".join(str(n) for n in sorted(lines))
            plural = "s" if len(lines) > 1 else ""
            self.report(strategy, node, f"{name} is {what} (bound at line{plural} {at}): {reason}")

    def alias_problems(self, binding: Binding, sym: Sym) -> list[tuple[Strategy, str, str]]:
        """What is wrong with using a name bound to ``sym``: (strategy, what, why) each."""
        p = self.policy
        if sym.kind == "builtin":
            b = sym.name
            reason = p.forbidden_builtins.get(b) or p.code_generation_builtins.get(b)
            return [] if reason is None else [("name_resolution", f"the builtin {b}", reason)]
        if sym == BUILTINS_NS:
            strategy: Strategy = "reflection" if binding.kind == "import" else "name_resolution"
            why = "every builtin, eval and open included, is an attribute of it"
            return [(strategy, "the builtins namespace", why)]
        dotted = sym.dotted
        if self.is_local(dotted):
            return []
        what = f"module {dotted}" if sym.kind == "module" else dotted
        reason = self.reflection_reason(dotted)
        if reason is not None:
            return [("reflection", what, reason)]
        reason = self.codegen_reason(dotted)
        if reason is not None:
            return [("recursive_control", what, reason)]
        out: list[tuple[Strategy, str, str]] = []
        if not self.sym_allowed(sym):
            out.append(("name_resolution", what, f"not allowed by policy {p.name}"))
        return out
