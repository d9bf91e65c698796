"""The seven strategies of the static posture validator, applied to one source text.

The analysis reads the code with ``ast`` and never runs it.  It works in three passes:

1. **Structure** (``ast_structure``): size limits, parse and compile errors, nesting
   depth, oversized literals, ``global``/``nonlocal`` declarations of interpreter names.
   When the code cannot be parsed or is too deep to analyse safely, nothing else runs.
2. **Scopes** (``_scope.py``): every binding of every name in every scope, with
   what it was bound to: an import, an expression, or something opaque.  Resolution
   follows Python's rules (class bodies are invisible to nested functions, ``global``
   and ``nonlocal`` redirect), flow-insensitively: a name means the union of everything
   it is ever bound to in its scope.
3. **Uses**: every name, attribute, call, import and literal is judged, with the
   *symbolic value* of expressions (``Sym``): which builtin, module or module member
   an expression may denote, followed through aliases (``e = eval``), imports under
   other names (``import importlib as il``), ``getattr`` with literal names,
   ``builtins``/``__builtins__`` lookups, containers and conditional expressions.

The policy is an allow-list in substance: every syntax form, builtin, module member,
dunder attribute, interpreter name and dunder definition the policy does not name is
refused, and every place where a *name* reaches an attribute (``getattr`` and the other
``name_arguments``, format templates, ``__match_args__``, class patterns, annotations
that typing evaluates, metaclasses) must take it from a literal the policy allows.

Three soundness rules matter more than precision:

- A module-level or class-level binding never hides a builtin: the binding may not
  have run yet when the name is used (``if False: eval = None`` leaves ``eval`` the
  builtin), so a forbidden builtin name used there is refused even when rebound.  Only
  function locals, which cannot fall back to builtins, hide them.
- Every route to a forbidden object needs at least one construct that is refused at
  its own place (a forbidden builtin or module name, a dunder, a computed attribute
  name, a computed format string); the alias tracking adds findings at the places of
  use so that a report points at the act, not only at the import.
- What the checks at a call site cannot see must not get out of sight: callables that
  take names and class builders may only be called (or compared, or checked against),
  never handed on (``_references.py``); a name nothing in the module binds is refused,
  since only a write into the module's namespace could have defined it.

This is defence in depth, never the security boundary (docs/build.md).

The strategies live by concern: the shared state and policy questions in ``_base.py``,
name resolution and symbolic values in ``_symbols.py``, and the checks in ``_syntax.py``
(pass 1 and syntax forms), ``_names.py`` (names and imports), ``_attributes.py``
(attributes and format templates), ``_calls.py`` (names handed to APIs, class builders,
code generation), ``_types.py`` (annotations and statically known classes),
``_classes.py`` (definitions, class statements, class patterns) and ``_references.py``
(where some values may go); ``_local.py`` answers questions about the candidate's other
modules.  ``_Analysis`` below puts them together.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ._attributes import _Attributes
from ._base import Context
from ._calls import _Calls
from ._model import Finding
from ._names import _Names
from ._references import _References
from ._scope import ScopeBuilder
from ._syntax import _Syntax

__all__ = ["Context", "analyse_text", "prepare"]


def analyse_text(text: str, ctx: Context, check_cookie: bool = True) -> list[Finding]:
    """Every finding of the seven strategies for one decoded source text."""
    return _Analysis(text, ctx).run(check_cookie)


def prepare(text: str, ctx: Context) -> _Analysis | None:
    """An analysis of ``text`` with its scopes built and no check run (None: unreadable).

    What another module of the candidate asks about this one (``_local.py``): whether it
    defines a name, whether a name it binds is a type.
    """
    analysis = _Analysis(text, ctx)
    tree = analysis.structure(check_cookie=False)
    if tree is None:
        return None
    try:
        analysis.scopes(tree)
    except RecursionError:
        return None
    return analysis


class _Analysis(_Syntax, _Names, _Attributes, _Calls, _References):
    """One analysis: the three passes over one source text."""

    def run(self, check_cookie: bool) -> list[Finding]:
        tree = self.structure(check_cookie)
        if tree is None:
            return self.findings
        try:
            self.scopes(tree)
            self.uses(tree)
        except RecursionError:
            self.report(
                "ast_structure", (1, 1), "the code is nested too deeply to analyse; simplify it"
            )
        return self.findings

    def scopes(self, tree: ast.Module) -> None:
        """Pass 2: every scope and binding, and where each node sits in the tree."""
        builder = ScopeBuilder(self.sym_of_import)
        builder.visit(tree)
        self.scope_of = builder.scope_of
        self.module_scope = builder.module
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
            for annotation in _annotations(node):
                self._annotation_nodes.update(id(n) for n in ast.walk(annotation))

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
            ast.ExceptHandler: self.check_capture,
            ast.MatchAs: self.check_capture,
            ast.MatchStar: self.check_capture,
            ast.MatchMapping: self.check_capture,
            ast.Import: self.check_import,
            ast.ImportFrom: self.check_import_from,
            ast.Global: self.check_declaration,
            ast.Nonlocal: self.check_declaration,
            ast.Constant: self.check_constant,
            ast.MatchClass: self.check_match_class,
            ast.Subscript: self.check_typing_subscript,
            ast.FunctionDef: self.check_definition,
            ast.AsyncFunctionDef: self.check_definition,
            ast.ClassDef: self.check_definition,
        }
        for node in nodes:
            handler = handlers.get(type(node))
            if handler is not None:
                handler(node)
            if isinstance(node, (ast.Name, ast.Attribute, ast.Call)) and (
                not isinstance(node, (ast.Name, ast.Attribute)) or isinstance(node.ctx, ast.Load)
            ):
                self.check_reference(node)
            for annotation in _annotations(node):
                self.check_annotation(annotation)

    def check_capture(
        self, node: ast.ExceptHandler | ast.MatchAs | ast.MatchStar | ast.MatchMapping
    ) -> None:
        """Names bound by ``except ... as``, capture patterns and ``**rest``."""
        name = node.rest if isinstance(node, ast.MatchMapping) else node.name
        if name:
            self.check_binding(name, node, self.scope(node))


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
