"""The seven strategies of the static posture validator, applied to one source text.

The analysis reads the code with ``ast`` and never runs it.  It works in three passes:

1. **Structure** (``ast_structure``): size limits, parse and compile errors, nesting
   depth, oversized literals, ``global``/``nonlocal`` declarations of interpreter names.
   When the code cannot be parsed or is too deep to analyse safely, nothing else runs.
2. **Scopes**: every binding of every name in every scope (module, class, function,
   lambda, comprehension), with what it was bound to: an import, an expression, or
   something opaque.  Resolution follows Python's rules (class bodies are invisible to
   nested functions, ``global``/``nonlocal`` redirect), flow-insensitively: a name
   means the union of everything it is ever bound to in its scope.
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
import builtins
import codecs
import functools
import importlib
import re
import string
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from derivative.forge._posture_model import Finding, Strategy
from derivative.forge._posture_policy import Policy

BUILTIN_NAMES: frozenset[str] = frozenset(dir(builtins)) | {
    "exit",
    "quit",
    "help",
    "copyright",
    "credits",
    "license",
}
"""Names that resolve to the builtins namespace when nothing binds them (site helpers too)."""

_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)
_FUNCTION_SCOPES = ("function", "lambda", "comprehension")
_MAX_SYM_DEPTH = 40

# --------------------------------------------------------------------------- symbolic values


@dataclass(frozen=True)
class Sym:
    """What an expression may denote: a builtin, a module, a module member, or beyond.

    ``kind`` is ``builtin`` (``name`` is the builtin), ``module`` (``module`` is its dotted
    name; ``builtins`` stands for the builtins namespace, ``__builtins__`` included),
    ``member`` (``module.name``, a name looked up on a module) or ``derived`` (an
    attribute of a member, ``module`` holds the whole dotted path).
    """

    kind: str
    module: str = ""
    name: str = ""

    @property
    def dotted(self) -> str:
        if self.kind == "builtin":
            return self.name
        if self.kind == "member":
            return f"{self.module}.{self.name}"
        return self.module


BUILTINS_NS = Sym("module", "builtins")
EMPTY: frozenset[Sym] = frozenset()


def _prefixes(dotted: str) -> Iterator[str]:
    """``a``, ``a.b``, ``a.b.c`` for ``a.b.c``."""
    parts = dotted.split(".")
    for i in range(1, len(parts) + 1):
        yield ".".join(parts[:i])


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


@functools.lru_cache(maxsize=256)
def public_api(module: str) -> frozenset[str] | None:
    """The public names of a standard-library module, or None when it cannot be known.

    The names in ``__all__`` when the module has one, else its public names whose values
    are not modules, so that ``typing.sys`` or ``dataclasses.inspect`` (modules that a
    module happens to import) never count as its API.  Only standard-library modules
    named by a policy are imported, and only here, to read their names.
    """
    if module.partition(".")[0] not in sys.stdlib_module_names:
        return None
    try:
        mod = importlib.import_module(module)
    except Exception:  # noqa: BLE001 - an unavailable module simply has no known API
        return None
    declared = getattr(mod, "__all__", None)
    if isinstance(declared, (list, tuple)) and all(isinstance(n, str) for n in declared):
        return frozenset(
            n for n in declared if not isinstance(getattr(mod, n, None), types.ModuleType)
        )
    return frozenset(
        n for n, v in vars(mod).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)
    )


# --------------------------------------------------------------------------- scopes


@dataclass(eq=False)
class Scope:
    """One Python scope and every binding made in it."""

    kind: str  # module | class | function | lambda | comprehension
    parent: Scope | None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)


@dataclass(eq=False)
class Binding:
    """One binding of a name: to an import (``syms``), to an expression, or opaque."""

    kind: str  # import | value | opaque
    line: int
    syms: frozenset[Sym] = EMPTY
    value: ast.expr | None = None
    scope: Scope | None = None


def _declarations(body: Iterable[ast.stmt]) -> tuple[set[str], set[str]]:
    """Names declared ``global`` and ``nonlocal`` directly in a scope's body."""
    glob: set[str] = set()
    nonloc: set[str] = set()
    stack: list[ast.AST] = list(body)
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Global):
            glob.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nonloc.update(node.names)
        elif not isinstance(node, nested):
            stack.extend(ast.iter_child_nodes(node))
    return glob, nonloc


class ScopeBuilder(ast.NodeVisitor):
    """Pass 2: every scope, every binding, and the scope of every node visited."""

    def __init__(self, sym_of_import: Callable[[str, str | None], Sym]) -> None:
        self.module = Scope("module", None)
        self.current = self.module
        self.scope_of: dict[int, Scope] = {}
        self._handled: set[int] = set()
        self._sym_of_import = sym_of_import

    # -- helpers

    def visit(self, node: ast.AST) -> None:
        self.scope_of[id(node)] = self.current
        super().visit(node)

    def _visit_all(self, nodes: Iterable[ast.AST | None]) -> None:
        for n in nodes:
            if n is not None:
                self.visit(n)

    def _target_scope(self, scope: Scope, name: str) -> Scope:
        if name in scope.globals:
            return self.module
        if name in scope.nonlocals:
            s = scope.parent
            while s is not None and s.kind not in ("function", "lambda"):
                s = s.parent
            return s if s is not None else self.module
        return scope

    def _add(self, name: str, binding: Binding, scope: Scope | None = None) -> None:
        target = self._target_scope(scope or self.current, name)
        target.bindings.setdefault(name, []).append(binding)

    def _bind_target(self, target: ast.expr, value: ast.expr | None, value_scope: Scope) -> None:
        if isinstance(target, ast.Name):
            self._handled.add(id(target))
            kind = "value" if value is not None else "opaque"
            self._add(target.id, Binding(kind, target.lineno, value=value, scope=value_scope))
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            pairwise = (
                isinstance(value, (ast.Tuple, ast.List))
                and len(value.elts) == len(elts)
                and not any(isinstance(e, ast.Starred) for e in (*elts, *value.elts))
            )
            for i, elt in enumerate(elts):
                part = value.elts[i] if pairwise and isinstance(value, (ast.Tuple, ast.List)) else value
                self._bind_target(elt, part, value_scope)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, value, value_scope)

    def _new_scope(self, kind: str, body: Iterable[ast.stmt] = ()) -> Scope:
        scope = Scope(kind, self.current)
        scope.globals, scope.nonlocals = _declarations(body)
        return scope

    # -- modules and statements

    def visit_Module(self, node: ast.Module) -> None:
        self._visit_all(node.body)  # `global` at module level changes nothing

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._bind_target(target, node.value, self.current)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._bind_target(node.target, node.value, self.current)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._bind_target(node.target, None, self.current)
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._bind_target(node.target, node.iter, self.current)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self._bind_target(item.optional_vars, None, self.current)
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        scope = self.current
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        self._handled.add(id(node.target))
        self._add(
            node.target.id, Binding("value", node.lineno, value=node.value, scope=self.current), scope
        )
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                sym = self._sym_of_import(alias.name, None)
                self._add(alias.asname, Binding("import", node.lineno, syms=frozenset({sym})))
            else:
                root = alias.name.partition(".")[0]
                sym = self._sym_of_import(root, None)
                self._add(root, Binding("import", node.lineno, syms=frozenset({sym})))
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                continue
            bound = alias.asname or alias.name
            if node.level or not node.module:
                self._add(bound, Binding("opaque", node.lineno))
                continue
            sym = self._sym_of_import(node.module, alias.name)
            self._add(bound, Binding("import", node.lineno, syms=frozenset({sym})))
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._add(node.name, Binding("opaque", node.lineno))
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self._add(node.name, Binding("opaque", node.lineno))
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self._add(node.name, Binding("opaque", node.lineno))
        self.generic_visit(node)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self._add(node.rest, Binding("opaque", node.lineno))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load) and id(node) not in self._handled:
            self._add(node.id, Binding("opaque", node.lineno))

    # -- scopes

    def _parameters(self, args: ast.arguments, outer: Scope) -> None:
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        defaults += list(args.defaults)
        pairs = [*zip(positional, defaults, strict=True), *zip(args.kwonlyargs, args.kw_defaults, strict=True)]
        for arg, default in pairs:
            kind = "value" if default is not None else "opaque"
            self._add(arg.arg, Binding(kind, arg.lineno, value=default, scope=outer))
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                self._add(extra.arg, Binding("opaque", extra.lineno))

    def _outer_parts_of_arguments(self, args: ast.arguments, annotations: bool) -> None:
        self._visit_all(args.defaults)
        self._visit_all(args.kw_defaults)
        if annotations:
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            self._visit_all(a.annotation for a in every if a is not None)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._add(node.name, Binding("opaque", node.lineno))
        outer = self.current
        self._visit_all(node.decorator_list)
        self._outer_parts_of_arguments(node.args, annotations=True)
        self._visit_all([node.returns])
        self.current = self._new_scope("function", node.body)
        self._parameters(node.args, outer)
        self._visit_all(node.body)
        self.current = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        outer = self.current
        self._outer_parts_of_arguments(node.args, annotations=False)
        self.current = self._new_scope("lambda")
        self._parameters(node.args, outer)
        self.visit(node.body)
        self.current = outer

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._add(node.name, Binding("opaque", node.lineno))
        outer = self.current
        self._visit_all(node.decorator_list)
        self._visit_all(node.bases)
        self._visit_all(node.keywords)
        self.current = self._new_scope("class", node.body)
        self._visit_all(node.body)
        self.current = outer

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, elts: list[ast.expr]
    ) -> None:
        outer = self.current
        first, *rest = node.generators
        self.visit(first.iter)
        self.current = self._new_scope("comprehension")
        for i, gen in enumerate([first, *rest]):
            if i:
                self.visit(gen.iter)
            self._bind_target(gen.target, gen.iter, outer if i == 0 else self.current)
            self.visit(gen.target)
            self._visit_all(gen.ifs)
        self._visit_all(elts)
        self.current = outer

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, [node.elt])

    def visit_SetComp(self, node: ast.SetComp) -> None:
        self._comprehension(node, [node.elt])

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:
        self._comprehension(node, [node.elt])

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])


# --------------------------------------------------------------------------- the analysis


class _TooComplex(Exception):
    """The code is too deep or too large to analyse safely."""


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
        self.lines = text.splitlines()
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
            re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, words)) + r")(?![A-Za-z0-9_])")
            if words
            else None
        )
        self._dynamic_tails = {d.rpartition(".")[2] for d in self.policy.dynamic_attribute_functions}
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
            return Sym("module", full) if self.is_module_name(full) else Sym("member", sym.module, attr)
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
            return self.syms_of(node.body, scope, depth + 1) | self.syms_of(node.orelse, scope, depth + 1)
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
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                self._call_funcs.add(id(node.func))
            elif isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
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
        for node in ast.walk(tree):
            handler = handlers.get(type(node))
            if handler is not None:
                handler(node)

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
                self.report("import_policy", node, f"__import__: {p.forbidden_builtins.get(name, 'imports modules by computed name')}{note}")
            elif name in p.forbidden_builtins:
                self.report("builtin_policy", node, f"{name}: {p.forbidden_builtins[name]}{note}")
            if name in p.dynamic_attribute_functions and not in_call:
                self.report(
                    "builtin_policy",
                    node,
                    f"{name} is used as a value, so its attribute name cannot be checked",
                )
        for binding in bindings:
            for sym in self.binding_syms(binding, 0):
                self.check_alias_use(node, name, binding, sym, in_call)

    def check_alias_use(self, node: ast.Name, name: str, binding: Binding, sym: Sym, in_call: bool) -> None:
        p = self.policy
        where = f"bound at line {binding.line}"
        if sym.kind == "builtin":
            b = sym.name
            reason = (
                p.forbidden_builtins.get(b)
                or p.code_generation_builtins.get(b)
                or (p.dynamic_attribute_functions.get(b) if not in_call else None)
            )
            if reason is not None:
                self.report("name_resolution", node, f"{name} is the builtin {b} ({where}): {reason}")
            return
        if sym == BUILTINS_NS:
            strategy: Strategy = "reflection" if binding.kind == "import" else "name_resolution"
            self.report(strategy, node, f"{name} is the builtins namespace ({where})")
            return
        dotted = sym.dotted
        if self.is_local(dotted):
            return
        reason = self.reflection_reason(dotted)
        if reason is not None:
            self.report("reflection", node, f"{name} refers to {dotted} ({where}): {reason}")
            return
        reason = self.codegen_reason(dotted)
        if reason is not None:
            self.report("recursive_control", node, f"{name} refers to {dotted} ({where}): {reason}")
            return
        if not self.sym_allowed(sym):
            self.report(
                "name_resolution",
                node,
                f"{name} refers to {dotted}, which policy {p.name} does not allow ({where})",
            )
        if dotted in p.dynamic_attribute_functions and not in_call:
            self.report(
                "attribute_access",
                node,
                f"{name} is {dotted} used as a value, so its attribute name cannot be checked",
            )

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
            if sym.kind == "module" and self.module_allowed(sym.module):
                if not self.member_allowed(sym.module, node.attr):
                    self.report("import_policy", where, self.member_message(sym.module, node.attr))
            if dotted in p.reflection_members:
                self.report("reflection", where, f"{dotted}: {p.reflection_members[dotted]}")
            if dotted in p.code_generation_members:
                self.report("recursive_control", where, f"{dotted}: {p.code_generation_members[dotted]}")
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
        p = self.policy
        if any(isinstance(a, ast.Starred) for a in node.args[:2]) or len(node.args) < 2:
            self.report(
                "builtin_policy",
                node,
                f"{builtin} with a computed attribute name: {p.dynamic_attribute_functions[builtin]}",
            )
            return
        name_node = node.args[1]
        name = self.literal_name(name_node)
        if name is None:
            self.report(
                "builtin_policy",
                node,
                f"{builtin} with a computed attribute name: {p.dynamic_attribute_functions[builtin]}",
            )
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
                        f"{builtin} on {sym.dotted} changes a module or class that the worker shares",
                    )

    def check_dynamic_callable(self, node: ast.Call, dotted: str) -> None:
        reason = self.policy.dynamic_attribute_functions[dotted]
        args = node.args if dotted.endswith("attrgetter") else node.args[:1]
        if not args or node.keywords and not dotted.endswith("methodcaller"):
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
        limits = self.policy.limits
        if self.ctx.nesting >= limits.max_exec_nesting:
            self.report(
                "recursive_control",
                node,
                f"{builtin} runs a string that runs strings, deeper than the policy follows",
            )
            return
        inner = Context(self.policy, self.ctx.file, self.ctx.local_modules, self.ctx.nesting + 1)
        mode_text = literal if builtin != "eval" else literal.strip()
        for f in analyse_text(mode_text, inner):
            self.report(
                f.strategy,
                node,
                f"in the code that {builtin} runs (its line {f.line}): {f.message}",
            )

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
