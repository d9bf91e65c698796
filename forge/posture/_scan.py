"""The seven strategies of the static posture validator, applied to one source text.

The analysis reads the code with ``ast`` and never runs it.  It works in three passes:

1. **Structure** (``ast_structure``): size limits, parse and compile errors, nesting
   depth, oversized literals, ``global``/``nonlocal`` declarations of interpreter names.
   When the code cannot be parsed or is too deep to analyse safely, nothing else runs.
2. **Scopes** (``_posture_scope``): every binding of every name in every scope, with
   what it was bound to: an import, an expression, or something opaque.  Resolution
   follows Python's rules (class bodies are invisible to nested functions, ``global``
   and ``nonlocal`` redirect), flow-insensitively: a name means the union of everything
   it is ever bound to in its scope.
3. **Uses**: every name, attribute, call, import and literal is judged, with the
   *symbolic value* of expressions (``Sym``): which builtin, module or module member
   an expression may denote, followed through aliases (``e = eval``), imports under
   other names (``import importlib as il``), ``getattr`` with literal names,
   ``builtins``/``__builtins__`` lookups, containers and conditional expressions.

Two soundness rules matter more than precision:

- A module-level or class-level binding never hides a builtin: the binding may not
  have run yet when the name is used (``if False: eval = None`` leaves ``eval`` the
  builtin), so a forbidden builtin name used there is refused even when rebound.  Only
  function locals, which cannot fall back to builtins, hide them.
- Every route to a forbidden object needs at least one construct that is refused at
  its own place (a forbidden builtin or module name, a dunder, a computed attribute
  name, a computed format string); the alias tracking adds findings at the places of
  use so that a report points at the act, not only at the import.

This is defence in depth, never the security boundary (ARCHITECTURE.md §3).
"""

from __future__ import annotations

import ast
import codecs
import re
import string
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._model import Finding, Strategy
from ._policy import Policy
from ._scope import (
    BUILTIN_NAMES,
    BUILTINS_NS,
    EMPTY,
    Binding,
    Scope,
    ScopeBuilder,
    Sym,
    _is_dunder,
    _prefixes,
    public_api,
)

_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)
_FUNCTION_SCOPES = ("function", "lambda", "comprehension")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_MAX_SYM_DEPTH = 40


# --------------------------------------------------------------------------- the analysis


@dataclass
class Context:
    """What one analysis needs besides the text: the policy and the candidate's own modules."""

    policy: Policy
    file: str
    local_modules: frozenset[str] = frozenset()
    nesting: int = 0


def analyse_text(text: str, ctx: Context, check_cookie: bool = True) -> list[Finding]:
    """Every finding of the seven strategies for one decoded source text."""
    return _Analysis(text, ctx).run(check_cookie)


class _Analysis:
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
        self._dynamic_tails = {
            d.rpartition(".")[2] for d in self.policy.dynamic_attribute_functions
        }
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
        return (
            dotted in p.modules
            or dotted in p.reflection_modules
            or dotted in p.code_generation_modules
            or self.is_local(dotted)
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

    # -- the passes

    def run(self, check_cookie: bool) -> list[Finding]:
        tree = self.structure(check_cookie)
        if tree is None:
            return self.findings
        try:
            builder = ScopeBuilder(self.sym_of_import)
            builder.visit(tree)
            self.scope_of = builder.scope_of
            self.module_scope = builder.module
            self.uses(tree)
        except RecursionError:
            self.report(
                "ast_structure", (1, 1), "the code is nested too deeply to analyse; simplify it"
            )
        return self.findings

    def structure(self, check_cookie: bool) -> ast.Module | None:
        """``ast_structure``: limits, parsing and compiling; the tree when it is safe to go on."""
        limits = self.policy.limits
        size = len(self.text.encode("utf-8", "surrogatepass"))
        if size > limits.max_source_bytes:
            self.report(
                "ast_structure",
                (0, 0),
                f"the source is {size} bytes; the policy allows {limits.max_source_bytes}",
            )
            return None
        if len(self.lines) > limits.max_lines:
            self.report(
                "ast_structure",
                (0, 0),
                f"the source has {len(self.lines)} lines; the policy allows {limits.max_lines}",
            )
            return None
        if check_cookie:
            self.check_cookie()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the candidate's warnings are not ours to print
                tree = ast.parse(self.text, filename=self.ctx.file)
        except SyntaxError as exc:
            line = exc.lineno or 0
            self.report("ast_structure", (line, exc.offset or 0), f"syntax error: {exc.msg}")
            return None
        except (ValueError, MemoryError, RecursionError, OverflowError) as exc:
            self.report("ast_structure", (0, 0), f"the source cannot be parsed: {exc}")
            return None
        if not self.check_shape(tree):
            return None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(tree, self.ctx.file, "exec", dont_inherit=True)
        except SyntaxError as exc:
            line = exc.lineno or 0
            self.report("ast_structure", (line, exc.offset or 0), f"does not compile: {exc.msg}")
            return None
        except (ValueError, MemoryError, RecursionError, OverflowError) as exc:
            self.report("ast_structure", (0, 0), f"does not compile: {exc}")
            return None
        return tree

    def check_cookie(self) -> None:
        for number, line in enumerate(self.lines[:2], start=1):
            match = _COOKIE.match(line)
            if match is None:
                continue
            declared = match.group(1)
            try:
                canonical = codecs.lookup(declared).name
            except LookupError:
                canonical = declared
            allowed = set()
            for enc in self.policy.source_encodings:
                try:
                    allowed.add(codecs.lookup(enc).name)
                except LookupError:
                    allowed.add(enc)
            if canonical not in allowed:
                self.report(
                    "recursive_control",
                    (number, match.start(1) + 1),
                    f"the source declares the encoding {declared}: Python would decode the file "
                    "differently from the text that was read (a codecs trick can hide code)",
                )
            return

    def check_shape(self, tree: ast.Module) -> bool:
        limits = self.policy.limits
        count = 0
        deepest = 0
        deepest_node: ast.AST = tree
        stack: list[tuple[ast.AST, int]] = [(tree, 0)]
        while stack:
            node, depth = stack.pop()
            count += 1
            if depth > deepest:
                deepest, deepest_node = depth, node
            if count > limits.max_nodes:
                self.report(
                    "ast_structure",
                    (0, 0),
                    f"the code has more than {limits.max_nodes} syntax nodes (the policy's limit)",
                )
                return False
            stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
        if deepest > limits.max_depth:
            self.report(
                "ast_structure",
                deepest_node if hasattr(deepest_node, "lineno") else (1, 1),
                f"the code nests {deepest} levels deep; the policy allows {limits.max_depth}",
            )
            return False
        return True

    # -- name resolution

    def scope(self, node: ast.AST) -> Scope:
        return self.scope_of.get(id(node), self.module_scope)

    def resolve(self, scope: Scope, name: str) -> tuple[list[Binding], bool]:
        """The bindings a name may refer to, and whether it may still be the builtin."""
        key = (id(scope), name)
        cached = self._resolved.get(key)
        if cached is not None:
            return cached
        result: tuple[list[Binding], bool] = ([], True)
        s: Scope | None = scope
        first = True
        while s is not None:
            if name in s.globals:
                result = (self.module_scope.bindings.get(name, []), True)
                break
            if s.kind == "class" and not first:
                s = s.parent
                continue
            if name in s.bindings:
                result = (s.bindings[name], s.kind not in _FUNCTION_SCOPES)
                break
            first = False
            s = s.parent
        self._resolved[key] = result
        return result

    def binding_syms(self, binding: Binding, depth: int) -> frozenset[Sym]:
        if binding.kind == "import":
            return binding.syms
        if binding.kind != "value" or binding.value is None or binding.scope is None:
            return EMPTY
        key = id(binding)
        if key in self._binding_syms:
            return self._binding_syms[key]
        if key in self._active:
            return EMPTY
        self._active.add(key)
        try:
            out = self.syms_of(binding.value, binding.scope, depth + 1)
        finally:
            self._active.discard(key)
        self._binding_syms[key] = out
        return out

    def builtin_syms(self, name: str) -> frozenset[Sym]:
        if name == "__builtins__":
            return frozenset({BUILTINS_NS})
        if name in BUILTIN_NAMES or name in self.policy.forbidden_builtins:
            return frozenset({Sym("builtin", name=name)})
        return EMPTY

    def attr_sym(self, sym: Sym, attr: str) -> Sym:
        if sym == BUILTINS_NS:
            return Sym("builtin", name=attr)
        if sym.kind == "module":
            full = f"{sym.module}.{attr}"
            return (
                Sym("module", full)
                if self.is_module_name(full)
                else Sym("member", sym.module, attr)
            )
        if sym.kind == "member":
            if self.is_module_name(sym.dotted):
                return Sym("member", sym.dotted, attr)
            return Sym("derived", f"{sym.dotted}.{attr}")
        if sym.kind == "builtin":
            return Sym("derived", f"builtins.{sym.name}.{attr}")
        return Sym("derived", f"{sym.module}.{attr}")

    def syms_of(self, node: ast.AST, scope: Scope, depth: int = 0) -> frozenset[Sym]:
        """Everything ``node`` may denote (see ``Sym``), conservatively."""
        if depth > _MAX_SYM_DEPTH:
            return EMPTY
        if isinstance(node, ast.Name):
            bindings, fallback = self.resolve(scope, node.id)
            out: set[Sym] = set()
            for b in bindings:
                out |= self.binding_syms(b, depth)
            if fallback:
                out |= self.builtin_syms(node.id)
            return frozenset(out)
        if isinstance(node, ast.Attribute):
            base = self.syms_of(node.value, scope, depth + 1)
            return frozenset(self.attr_sym(s, node.attr) for s in base)
        if isinstance(node, ast.Subscript):
            base = self.syms_of(node.value, scope, depth + 1)
            key = node.slice
            out = set()
            for s in base:
                if s == BUILTINS_NS:
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        out.add(Sym("builtin", name=key.value))
                else:
                    out.add(s)  # containers carry what they may hold
            return frozenset(out)
        if isinstance(node, ast.Call):
            return self.call_syms(node, scope, depth)
        if isinstance(node, ast.IfExp):
            return self.syms_of(node.body, scope, depth + 1) | self.syms_of(
                node.orelse, scope, depth + 1
            )
        if isinstance(node, ast.BoolOp):
            return frozenset().union(*(self.syms_of(v, scope, depth + 1) for v in node.values))
        if isinstance(node, (ast.NamedExpr, ast.Starred)):
            return self.syms_of(node.value, scope, depth + 1)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return frozenset().union(*(self.syms_of(e, scope, depth + 1) for e in node.elts))
        if isinstance(node, ast.Dict):
            return frozenset().union(*(self.syms_of(v, scope, depth + 1) for v in node.values))
        return EMPTY

    def call_syms(self, node: ast.Call, scope: Scope, depth: int) -> frozenset[Sym]:
        funcs = self.syms_of(node.func, scope, depth + 1)
        first = node.args[0] if node.args else None
        literal = (
            first.value
            if isinstance(first, ast.Constant) and isinstance(first.value, str)
            else None
        )
        out: set[Sym] = set()
        for f in funcs:
            if f == Sym("builtin", name="getattr") and len(node.args) >= 2:
                name = node.args[1]
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    for base in self.syms_of(node.args[0], scope, depth + 1):
                        out.add(self.attr_sym(base, name.value))
            elif f == Sym("builtin", name="__import__") and literal:
                out.add(self.sym_of_import(literal.partition(".")[0], None))
            elif f.dotted == "importlib.import_module" and literal:
                out.add(self.sym_of_import(literal, None))
        return frozenset(out)

    # -- pass 3: uses

    def uses(self, tree: ast.Module) -> None:
        nodes = list(ast.walk(tree))
        for node in nodes:
            if isinstance(node, ast.Call):
                self._call_funcs.add(id(node.func))
            elif isinstance(
                node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
            ):
                body = node.body
                if (
                    body
                    and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)
                ):
                    self._docstrings.add(id(body[0].value))
        handlers: dict[type[ast.AST], Callable[[Any], None]] = {
            ast.Name: self.check_name,
            ast.Attribute: self.check_attribute,
            ast.Call: self.check_call,
            ast.Import: self.check_import,
            ast.ImportFrom: self.check_import_from,
            ast.Global: self.check_declaration,
            ast.Nonlocal: self.check_declaration,
            ast.Constant: self.check_constant,
            ast.MatchClass: self.check_match_class,
            ast.FunctionDef: self.check_definition,
            ast.AsyncFunctionDef: self.check_definition,
            ast.ClassDef: self.check_definition,
        }
        for node in nodes:
            handler = handlers.get(type(node))
            if handler is not None:
                handler(node)
            for annotation in _annotations(node):
                self.check_annotation(annotation)

    # ast_structure

    def check_declaration(self, node: ast.Global | ast.Nonlocal) -> None:
        word = "global" if isinstance(node, ast.Global) else "nonlocal"
        p = self.policy
        for name in node.names:
            if (
                _is_dunder(name)
                or name in p.reserved_names
                or name in p.forbidden_builtins
                or name in p.dynamic_attribute_functions
            ):
                self.report(
                    "ast_structure",
                    node,
                    f"`{word} {name}` rebinds an interpreter name from inside a function",
                )

    def check_constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, (str, bytes)) and len(value) > self.policy.limits.max_constant_bytes:
            self.report(
                "ast_structure",
                node,
                f"a literal of {len(value)} characters; the policy allows "
                f"{self.policy.limits.max_constant_bytes}",
            )
        if not isinstance(value, str) or id(node) in self._docstrings or self._mention is None:
            return
        match = self._mention.search(value)
        if match is None:
            return
        where = self.at(node)
        if ("attribute_access", *where) in self._positions:
            return
        word = match.group(1)
        self.report(
            "attribute_access",
            where,
            f"a string names {word} ({self.policy.denied_attributes[word]}); such strings "
            "feed getattr, format fields or attrgetter",
        )

    def check_definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        if node.name in self.policy.reserved_names:
            self.report(
                "name_resolution",
                node,
                f"defines {node.name}: {self.policy.reserved_names[node.name]}",
            )

    # import_policy, reflection, recursive_control at imports

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
            if module == "builtins" or self.is_local(module):
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

    def member_message(self, module: str, name: str) -> str:
        rule = self.policy.modules.get(module)
        why = f" ({rule.why})" if rule is not None and rule.why else ""
        if name.startswith("_"):
            return f"{module}.{name} is private to {module}; the policy allows its public API only"
        return f"{module}.{name} is not allowed by policy {self.policy.name}{why}"

    # builtin_policy, name_resolution, reflection at names

    def check_name(self, node: ast.Name) -> None:
        p = self.policy
        name = node.id
        if name in p.reserved_names:
            self.report("name_resolution", node, f"{name}: {p.reserved_names[name]}")
        if not isinstance(node.ctx, ast.Load):
            return
        scope = self.scope(node)
        bindings, fallback = self.resolve(scope, name)
        in_call = id(node) in self._call_funcs
        if fallback and name in BUILTIN_NAMES | p.forbidden_builtins.keys():
            note = ""
            if bindings:
                note = (
                    f" (its binding at line {bindings[0].line} is at module or class level and "
                    "may not have run yet, so the builtin is still reachable; use another name)"
                )
            if name == "__import__":
                why = p.forbidden_builtins.get(name, "imports modules by computed name")
                self.report("import_policy", node, f"__import__: {why}{note}")
            elif name in p.forbidden_builtins:
                self.report("builtin_policy", node, f"{name}: {p.forbidden_builtins[name]}{note}")
            if name in p.dynamic_attribute_functions and not in_call:
                self.report(
                    "builtin_policy",
                    node,
                    f"{name} is used as a value, so its attribute name cannot be checked",
                )
        grouped: dict[tuple[Strategy, str], tuple[set[str], set[int]]] = {}
        for binding in bindings:
            for sym in self.binding_syms(binding, 0):
                for strategy, what, reason in self.alias_problems(binding, sym, in_call):
                    whats, lines = grouped.setdefault((strategy, reason), (set(), set()))
                    whats.add(what)
                    lines.add(binding.line)
        for (strategy, reason), (whats, lines) in sorted(grouped.items()):
            listed = sorted(whats)
            what = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " or " + listed[-1]
            at = ", ".join(str(n) for n in sorted(lines))
            plural = "s" if len(lines) > 1 else ""
            self.report(strategy, node, f"{name} is {what} (bound at line{plural} {at}): {reason}")

    def alias_problems(
        self, binding: Binding, sym: Sym, in_call: bool
    ) -> list[tuple[Strategy, str, str]]:
        """What is wrong with using a name bound to ``sym``: (strategy, what, why) each."""
        p = self.policy
        if sym.kind == "builtin":
            b = sym.name
            reason = (
                p.forbidden_builtins.get(b)
                or p.code_generation_builtins.get(b)
                or (p.dynamic_attribute_functions.get(b) if not in_call else None)
            )
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
        if dotted in p.dynamic_attribute_functions and not in_call:
            why = "used as a value, so its attribute name cannot be checked"
            out.append(("attribute_access", what, why))
        return out

    # attribute_access

    def attr_position(self, node: ast.Attribute) -> tuple[int, int]:
        line = node.end_lineno or node.lineno
        end = self.column(line, node.end_col_offset or 0)
        return line, max(end - len(node.attr), 1)

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

    # calls: dynamic attribute names, code generation, format strings

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

    def literal_name(self, node: ast.expr | None) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return None

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


def _annotations(node: ast.AST) -> list[ast.expr]:
    """The annotation expressions written directly on ``node`` (parameters, returns, targets)."""
    if isinstance(node, ast.AnnAssign):
        return [node.annotation]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = node.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
        found = [p.annotation for p in params if p is not None and p.annotation is not None]
        return found + ([node.returns] if node.returns is not None else [])
    return []


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
