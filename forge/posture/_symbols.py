"""Name resolution and symbolic values for one posture analysis.

``resolve`` follows Python's scoping rules flow-insensitively (class bodies are invisible
to nested functions, ``global`` and ``nonlocal`` redirect): a name means the union of
everything it is ever bound to in its scope, and whether it may still be the builtin.
``syms_of`` gives the *symbolic value* of an expression (``Sym``): which builtin, module
or module member it may denote, followed through aliases, imports under other names,
``getattr`` with literal names, ``builtins``/``__builtins__`` lookups, containers and
conditional expressions.  ``type(x)`` is ``TYPE_OF``, a class builder: when ``x`` is a
class, its class is ``type`` (or a metaclass).
"""

from __future__ import annotations

import ast

from ._base import _Base
from ._scope import BUILTIN_NAMES, BUILTINS_NS, EMPTY, Binding, Scope, Sym

__all__: list[str] = []

_FUNCTION_SCOPES = ("function", "lambda", "comprehension")

TYPE_OF = Sym("derived", "type()")
"""What ``type(x)`` denotes: the class of ``x``, which is ``type`` (or a metaclass) when ``x``
is a class, so it is a class builder; calling it with one argument makes an instance."""
_MAX_SYM_DEPTH = 40


class _Symbols(_Base):
    """What names and expressions may denote (see the module docstring)."""

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
            # ``str.format``: an attribute of a builtin, not of the builtins namespace
            return Sym("derived", f"{sym.name}.{attr}")
        if sym.kind == "instance":
            return Sym("instance", f"{sym.module}.{attr}")
        return Sym("derived", f"{sym.module}.{attr}")

    def syms_here(self, node: ast.AST) -> frozenset[Sym]:
        """``syms_of`` a node of the candidate's tree, in its own scope (cached)."""
        key = id(node)
        cached = self._node_syms.get(key)
        if cached is None:
            cached = self.syms_of(node, self.scope(node))
            self._node_syms[key] = cached
        return cached

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
            elif f == Sym("builtin", name="type") and len(node.args) == 1 and not node.keywords:
                out.add(TYPE_OF)  # the class of something: ``type`` itself when it is a class
            elif f == Sym("builtin", name="__import__") and literal:
                out.add(self.sym_of_import(literal.partition(".")[0], None))
            elif f.dotted == "importlib.import_module" and literal:
                out.add(self.sym_of_import(literal, None))
            elif f.kind in ("member", "derived", "instance") and self.from_library(f):
                out.add(Sym("instance", f"{f.dotted}()"))  # an object the library made
        return frozenset(out)

    def from_library(self, sym: Sym) -> bool:
        """Whether ``sym`` is something of a module the policy names (not the candidate's)."""
        root = sym.dotted.partition(".")[0]
        return not self.is_local(root) and self.is_module_name(root)
