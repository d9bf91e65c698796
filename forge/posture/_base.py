"""What every part of one posture analysis shares: the state, reporting, policy questions.

``_Base`` holds one analysis's text, policy and findings, reports a finding once per
place, and answers what the policy says of a module, a module member or an attribute.
The analysis itself (``_scan.py``) is built on it: name resolution and symbolic values
(``_symbols.py``), then the checks by syntax form (``_syntax.py``), names and imports
(``_names.py``), attributes (``_attributes.py``) and calls (``_calls.py``).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._model import Finding, Strategy
from ._policy import Policy
from ._scope import Binding, Scope, Sym, _is_dunder, _prefixes, public_api

if TYPE_CHECKING:
    from ._local import LocalModules

__all__ = ["Context"]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")

BUILDER_METHODS = frozenset({"__new__", "__call__", "__init__", "__prepare__"})
"""Methods of a class builder (``type.__new__`` ...) that build a class as the builder does."""


@dataclass
class Context:
    """What one analysis needs besides the text: the policy and the candidate's own modules.

    ``modules`` reads the candidate's other modules on demand, for the checks that cross
    files (a type alias imported from a sibling, a name imported that a sibling lacks);
    without it such a name counts as unseen.
    """

    policy: Policy
    file: str
    local_modules: frozenset[str] = frozenset()
    nesting: int = 0
    modules: LocalModules | None = None


class _Base:
    """The state of one analysis, reporting, and the policy's answers."""

    def __init__(self, text: str, ctx: Context) -> None:
        self.text = text
        self.ctx = ctx
        self.policy = ctx.policy
        # Python counts lines at \n, \r\n and \r only (str.splitlines also splits at
        # form feeds and U+2028, which would shift every later line).
        self.lines = _LINE_BREAK.split(text)
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, int, int, str]] = set()
        self._positions: set[tuple[str, int, int]] = set()
        self._resolved: dict[tuple[int, str], tuple[list[Binding], bool]] = {}
        self._binding_syms: dict[int, frozenset[Sym]] = {}
        self._active: set[int] = set()
        self._call_funcs: set[int] = set()
        self._docstrings: set[int] = set()
        words = sorted(self.policy.denied_attributes, key=len, reverse=True)
        self._mention = (
            re.compile(
                r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, words)) + r")(?![A-Za-z0-9_])"
            )
            if words
            else None
        )
        p = self.policy
        self._name_methods = {k[2:]: k for k in p.name_arguments if k.startswith("*.")}
        self._dunder_definitions = {n: g.why for g in p.allowed_dunder_definitions for n in g.names}
        self._syntax = frozenset(p.syntax)
        self._allowed_builtins = frozenset(p.allowed_builtins)
        self.parents: dict[int, ast.AST] = {}
        self._annotation_nodes: set[int] = set()
        self._type_active: set[int] = set()
        self._node_syms: dict[int, frozenset[Sym]] = {}
        self.module_scope = Scope("module", None)
        self.scope_of: dict[int, Scope] = {}

    # -- reporting

    def column(self, line: int, byte_offset: int) -> int:
        """1-based character column of a UTF-8 byte offset on ``line``."""
        if not 1 <= line <= len(self.lines):
            return byte_offset + 1
        prefix = self.lines[line - 1].encode("utf-8", "surrogatepass")[:byte_offset]
        return len(prefix.decode("utf-8", "replace")) + 1

    def at(self, node: ast.AST) -> tuple[int, int]:
        line = getattr(node, "lineno", 0)
        return line, self.column(line, getattr(node, "col_offset", 0))

    def report(self, strategy: Strategy, where: ast.AST | tuple[int, int], message: str) -> None:
        line, col = self.at(where) if isinstance(where, ast.AST) else where
        key = (strategy, line, col, message)
        if key in self._seen:
            return
        self._seen.add(key)
        self._positions.add((strategy, line, col))
        self.findings.append(
            Finding(strategy=strategy, file=self.ctx.file, line=line, column=col, message=message)
        )

    # -- policy questions

    def is_local(self, dotted: str) -> bool:
        return dotted.partition(".")[0] in self.ctx.local_modules

    def is_module_name(self, dotted: str) -> bool:
        p = self.policy
        if self.is_local(dotted):
            # a top-level local name is a module; below it, only what has a source file
            modules = self.ctx.modules
            return "." not in dotted or (modules is not None and modules.is_module(dotted))
        return (
            dotted in p.modules
            or dotted in p.reflection_modules
            or dotted in p.code_generation_modules
        )

    def module_allowed(self, module: str) -> bool:
        return module in self.policy.modules or self.is_local(module)

    def member_allowed(self, module: str, name: str) -> bool:
        if self.is_local(module) or self.module_allowed(f"{module}.{name}"):
            return True
        rule = self.policy.modules.get(module)
        if rule is None:
            return False
        if name in rule.deny:
            return False
        if rule.allow is not None:
            return name in rule.allow
        api = public_api(module)
        if api is None:
            return not name.startswith("_") and name not in sys.stdlib_module_names
        return name in api

    def sym_allowed(self, sym: Sym) -> bool:
        if sym.kind == "module":
            return self.module_allowed(sym.module)
        if sym.kind == "member":
            return self.member_allowed(sym.module, sym.name)
        return True

    def reflection_reason(self, dotted: str) -> str | None:
        p = self.policy
        if dotted in p.reflection_members:
            return p.reflection_members[dotted]
        for prefix in _prefixes(dotted):
            if prefix in p.reflection_modules:
                return p.reflection_modules[prefix]
        return None

    def codegen_reason(self, dotted: str) -> str | None:
        p = self.policy
        if dotted in p.code_generation_members:
            return p.code_generation_members[dotted]
        for prefix in _prefixes(dotted):
            if prefix in p.code_generation_modules:
                return p.code_generation_modules[prefix]
        return None

    def sym_of_import(self, module: str, name: str | None) -> Sym:
        if name is None:
            return Sym("module", module)
        if module == "builtins":
            return Sym("builtin", name=name)
        full = f"{module}.{name}"
        if self.is_module_name(full):
            return Sym("module", full)
        return Sym("member", module, name)

    def member_message(self, module: str, name: str) -> str:
        rule = self.policy.modules.get(module)
        why = f" ({rule.why})" if rule is not None and rule.why else ""
        if name.startswith("_"):
            return f"{module}.{name} is private to {module}; the policy allows its public API only"
        return f"{module}.{name} is not allowed by policy {self.policy.name}{why}"

    def attr_problem(self, attr: str, store: bool) -> str | None:
        p = self.policy
        if attr in p.denied_attributes:
            return f"{attr}: {p.denied_attributes[attr]}"
        if _is_dunder(attr):
            if attr not in p.allowed_dunder_attributes:
                return f"{attr} is not one of the ordinary dunder attributes the policy allows"
            if store:
                return f"assigning {attr} rewires a class or object at run time"
        return None

    def name_problem(self, name: str, store: bool) -> str | None:
        """What is wrong with an attribute name handed to an API that reads or writes it."""
        problem = self.attr_problem(name, store)
        if problem is None and name in self.policy.template_attributes:
            problem = f"{name}: {self.policy.template_attributes[name]}"
        return problem

    def sym_key(self, sym: Sym) -> str:
        """How the policy names what ``sym`` denotes: a builtin's name, else the dotted path."""
        return sym.name if sym.kind == "builtin" else sym.dotted

    def builder_parts(self, sym: Sym) -> tuple[str, str] | None:
        """``(builder, method)`` when ``sym`` builds classes from a namespace, else None.

        ``type`` and the policy's other class builders (method ``""``), their methods that
        build as they do (``type.__new__``), and ``type(x)`` (key ``type()``), the class
        of something, which is ``type`` itself when that something is a class.
        """
        key = self.sym_key(sym)
        builders = self.policy.class_builders
        if key == "type()":
            return ("type", "") if "type" in builders else None
        if key in builders:
            return key, ""
        head, _, attr = key.rpartition(".")
        if attr in BUILDER_METHODS and (head in builders or head == "type()"):
            return ("type" if head == "type()" else head), attr
        return None

    def is_builder(self, sym: Sym) -> bool:
        return self.builder_parts(sym) is not None

    def literal_name(self, node: ast.expr | None) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return None
