"""Calls in one posture analysis: names handed to APIs, class builders, code generation.

Every callable that takes attribute names (``name_arguments``: ``getattr`` and its
relatives, ``operator.attrgetter``, ``functools.update_wrapper``/``wraps``, ``namedtuple``
and enum's functional API, ``__setattr__`` of any object) must get them as literals the
policy allows, wherever the parameter is passed (by position or keyword); arguments
from a sequence or mapping (``*args``, ``**kwargs``) hide which is which and are refused.
A class builder (``type``, a metaclass) called with a namespace builds a class from
run-time data and is refused.  ``eval``/``exec``/``compile`` of a literal are validated
as nested code, of anything else refused.
"""

from __future__ import annotations

import ast
import re

from ._classes import _Classes
from ._model import Strategy
from ._policy import NameArguments, NameParameter

__all__: list[str] = []

_FIELD_SEPARATORS = re.compile(r"[\s,]+")


class _Calls(_Classes):
    """Calls (see the module docstring)."""

    def check_call(self, node: ast.Call) -> None:
        p = self.policy
        for sym in self.syms_here(node.func):
            key = self.sym_key(sym)
            spec = p.name_arguments.get(key)
            if spec is not None:
                self.check_name_arguments(node, key, spec, builtin=sym.kind == "builtin")
            if sym.kind == "builtin" and sym.name in p.code_generation_builtins:
                self.check_code_generation(node, sym.name)
            parts = self.builder_parts(sym)
            if parts is not None:
                self.check_builder_call(node, key, *parts)
        for key in sorted(self.inherited_name_apis(node.func)):
            self.check_name_arguments(node, key, p.name_arguments[key], builtin=False)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in self._name_methods:
            spec = p.name_arguments[self._name_methods[func.attr]]
            self.check_name_arguments(node, func.attr, spec, builtin=False)

    # -- names handed to APIs

    def check_name_arguments(
        self, node: ast.Call, label: str, spec: NameArguments, builtin: bool
    ) -> None:
        strategy: Strategy = "builtin_policy" if builtin else "attribute_access"
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            self.report(
                strategy,
                node,
                f"{label} with arguments from a sequence or mapping: the attribute names it "
                f"takes cannot be checked ({spec.why})",
            )
            return
        named = {param.keyword for param in spec.names if param.keyword}
        for param in spec.names:
            if param.shape == "keywords":
                for kw in node.keywords:
                    if kw.arg is not None and kw.arg not in named:
                        self.check_literal_name(kw.arg, kw, label, param.store)
                continue
            for arg in self.parameter_arguments(node, param):
                self.check_names_in(node, arg, label, param, strategy, spec.why)
        if any(param.store for param in spec.names) and node.args:
            for sym in self.syms_here(node.args[0]):
                if sym.kind in ("module", "member", "derived"):
                    self.report(
                        "attribute_access",
                        node,
                        f"{label} on {sym.dotted} changes a module or class the worker shares",
                    )

    def parameter_arguments(self, node: ast.Call, param: NameParameter) -> list[ast.expr]:
        """The arguments of ``node`` that fill ``param`` (by position or by keyword)."""
        found: list[ast.expr] = []
        if param.position is not None:
            count = len(node.args)
            index = param.position if param.position >= 0 else count + param.position
            if param.rest:
                found.extend(node.args[max(index, 0) :])
            elif 0 <= index < count:
                found.append(node.args[index])
        if param.keyword is not None:
            found.extend(k.value for k in node.keywords if k.arg == param.keyword)
        return found

    def check_names_in(
        self,
        node: ast.Call,
        arg: ast.expr,
        label: str,
        param: NameParameter,
        strategy: Strategy,
        why: str,
    ) -> None:
        names = _literal_names(arg, param.shape)
        if names is None:
            where = f" in {param.keyword}" if param.keyword else ""
            self.report(
                strategy,
                node,
                f"{label} with a computed attribute name{where}: only literal names can be "
                f"checked ({why})",
            )
            return
        for text, at in names:
            parts = text.split(".") if param.shape == "path" else [text]
            for part in parts:
                self.check_literal_name(part, at, label, param.store, shown=text)

    def check_literal_name(
        self, name: str, at: ast.AST, label: str, store: bool, shown: str | None = None
    ) -> None:
        problem = self.name_problem(name, store)
        if problem is not None:
            self.report("attribute_access", at, f"{label}({shown or name!r}): {problem}")

    # -- class builders and code generation

    def check_builder_call(self, node: ast.Call, key: str, builder: str, method: str) -> None:
        """``type(x)`` and ``type(self)(value)`` are fine; a namespace builds a class."""
        spread = any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        )
        if method or spread or len(node.args) >= 3:
            self.report(
                "recursive_control",
                node,
                f"{key} builds a class from run-time data: {self.policy.class_builders[builder]}",
            )

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


def _literal_names(arg: ast.expr, shape: str) -> list[tuple[str, ast.AST]] | None:
    """The literal names ``arg`` holds in ``shape``, or None when any of them is computed."""

    def text(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return None

    if shape in ("name", "path"):
        value = text(arg)
        return None if value is None else [(value, arg)]
    found: list[tuple[str, ast.AST]] = []
    if shape == "fields" and text(arg) is not None:
        return [(n, arg) for n in _FIELD_SEPARATORS.split(text(arg) or "") if n]
    if isinstance(arg, ast.Dict) and shape == "fields":
        items: list[ast.AST | None] = list(arg.keys)
    elif isinstance(arg, (ast.Tuple, ast.List)):
        items = list(arg.elts)
    else:
        return None
    for item in items:
        if shape == "fields" and isinstance(item, (ast.Tuple, ast.List)) and item.elts:
            item = item.elts[0]  # (name, value) pairs
        value = text(item) if item is not None else None
        if value is None or item is None:
            return None
        found.append((value, item))
    return found
