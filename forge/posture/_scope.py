"""Scopes and symbolic values for the static posture validator.

``ScopeBuilder`` records every binding of every name in every scope of a module (module,
class, function, lambda, comprehension), with what it was bound to: an import, an
expression (evaluated later, lazily, in the scope where it was written), or something
opaque (a parameter without default, an ``except ... as`` name, a ``with`` target).
Flow-insensitive on purpose: a name means the union of everything it is ever bound to in
its scope, which can only over-approximate what the code may reach.

``Sym`` is what an expression may denote for the validator: a builtin, a module, a member
of a module, or an attribute path beyond that.  ``public_api`` says which names of an
allowed standard-library module count as its API.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

BUILTIN_NAMES: frozenset[str] = frozenset(dir(builtins)) | {
    "exit",
    "quit",
    "help",
    "copyright",
    "credits",
    "license",
}
"""Names that resolve to the builtins namespace when nothing binds them (site helpers too)."""


# --------------------------------------------------------------------------- symbolic values


@dataclass(frozen=True)
class Sym:
    """What an expression may denote: a builtin, a module, a module member, or beyond.

    ``kind`` is ``builtin`` (``name`` is the builtin), ``module`` (``module`` is its dotted
    name; ``builtins`` stands for the builtins namespace, ``__builtins__`` included),
    ``member`` (``module.name``, a name looked up on a module), ``derived`` (an
    attribute of a member, ``module`` holds the whole dotted path) or ``instance`` (what
    calling a library callable returned, ``json.loads()``, and its attributes).
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
    except Exception:  # an unavailable module simply has no known API
        return None
    declared = getattr(mod, "__all__", None)
    if isinstance(declared, (list, tuple)) and all(isinstance(n, str) for n in declared):
        return frozenset(
            n for n in declared if not isinstance(getattr(mod, n, None), types.ModuleType)
        )
    return frozenset(
        n
        for n, v in vars(mod).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType)
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
    """One binding of a name: to an import (``syms``), to an expression, or opaque.

    ``node`` is the definition (``def``, ``class``, a parameter's ``arg``) a binding comes
    from, so that a class can be told from a parameter (whose default the caller can
    replace).
    """

    kind: str  # import | value | opaque
    line: int
    syms: frozenset[Sym] = EMPTY
    value: ast.expr | None = None
    scope: Scope | None = None
    node: ast.AST | None = None


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
                part = (
                    value.elts[i]
                    if pairwise and isinstance(value, (ast.Tuple, ast.List))
                    else value
                )
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
            node.target.id,
            Binding("value", node.lineno, value=node.value, scope=self.current),
            scope,
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
        pairs = [
            *zip(positional, defaults, strict=True),
            *zip(args.kwonlyargs, args.kw_defaults, strict=True),
        ]
        for arg, default in pairs:
            kind = "value" if default is not None else "opaque"
            binding = Binding(kind, arg.lineno, value=default, scope=outer, node=arg)
            self._add(arg.arg, binding)
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                self._add(extra.arg, Binding("opaque", extra.lineno, node=extra))

    def _outer_parts_of_arguments(self, args: ast.arguments, annotations: bool) -> None:
        self._visit_all(args.defaults)
        self._visit_all(args.kw_defaults)
        if annotations:
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            self._visit_all(a.annotation for a in every if a is not None)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._add(node.name, Binding("opaque", node.lineno, node=node))
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
        self._add(node.name, Binding("opaque", node.lineno, node=node))
        outer = self.current
        self._visit_all(node.decorator_list)
        self._visit_all(node.bases)
        self._visit_all(node.keywords)
        self.current = self._new_scope("class", node.body)
        self._visit_all(node.body)
        self.current = outer

    def _comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        elts: list[ast.expr],
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
