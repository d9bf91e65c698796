"""Plain type expressions: what an annotation, a class pattern or a base class may be.

``typing.get_type_hints`` evaluates annotations, and ``functools.singledispatch`` calls it
at import on every function it registers.  A string annotation is evaluated as code, and
so is any *string* an annotation evaluates to (``_type_check`` turns it into a forward
reference and evaluates that too): an annotation ``H`` where ``H = "__imp" + "ort__..."``
runs data.  So annotations may hold only what evaluates without running data: names of
classes, imports, builtins and type aliases (whose values obey the same rule, followed
into the candidate's other modules), attributes of modules, subscripts, ``|``, and string
literals that parse to such an expression.  ``Literal[...]`` holds constants and enum
members; ``Annotated[T, ...]`` metadata constants or names.

The same judgement says whether a class is *statically known*: a class pattern with
positional sub-patterns reads the attributes its class's ``__match_args__`` names, and a
base class brings its metaclass, so both must be classes the validator can see.
"""

from __future__ import annotations

import ast
import warnings

from ._base import Context
from ._scope import BUILTIN_NAMES, Binding, Scope, _is_dunder
from ._symbols import _Symbols

__all__: list[str] = []

_MAX_DEPTH = 40
_STRING_STEP = 10
"""Each nested string annotation costs this much depth: strings nest at most a few deep."""

_KINDS = {
    ast.Call: "a call",
    ast.BinOp: "an operator",
    ast.BoolOp: "a boolean operator",
    ast.Compare: "a comparison",
    ast.JoinedStr: "an f-string",
    ast.Lambda: "a lambda",
    ast.IfExp: "a conditional expression",
    ast.List: "a list",
    ast.Tuple: "a tuple",
    ast.Dict: "a dict",
    ast.Set: "a set",
    ast.NamedExpr: "an assignment expression",
    ast.UnaryOp: "an operator",
}


def _kind(node: ast.AST) -> str:
    for cls, text in _KINDS.items():
        if isinstance(node, cls):
            return text
    return f"a {type(node).__name__} expression"


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Types(_Symbols):
    """Type expressions and statically known classes (see the module docstring)."""

    def check_annotation(self, annotation: ast.expr) -> None:
        """An annotation must be a plain type expression; strings in it are code too."""
        for node in ast.walk(annotation):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
                label = "a string annotation, which typing.get_type_hints evaluates"
                self.nested(node.value.strip(), node, label, keep_syntax_errors=False)
        problem = self.type_problem(annotation, self.scope(annotation))
        if problem is not None:
            self.report(
                "recursive_control",
                annotation,
                f"an annotation that is not a plain type expression ({problem}): "
                "typing.get_type_hints evaluates annotations, and singledispatch's register "
                "does so at import",
            )

    def check_typing_subscript(self, node: ast.Subscript) -> None:
        """``typing.List["..."]`` outside an annotation: typing compiles the strings in it
        as forward references, which ``ForwardRef._evaluate`` and get_type_hints evaluate."""
        if id(node) in self._annotation_nodes or not isinstance(node.ctx, ast.Load):
            return
        if not self.typing_subscript(node):
            return
        parent = self.parents.get(id(node))
        while isinstance(parent, (ast.Subscript, ast.Tuple, ast.List, ast.BinOp)):
            if isinstance(parent, ast.Subscript) and self.typing_subscript(parent):
                return  # judged as part of the outer subscript
            parent = self.parents.get(id(parent))
        problem = self.type_problem(node, self.scope(node))
        if problem is not None:
            self.report(
                "recursive_control",
                node,
                f"a typing subscript that is not a plain type expression ({problem}): typing "
                "compiles the strings in it as forward references, which are evaluated later",
            )

    def typing_subscript(self, node: ast.Subscript) -> bool:
        return any(s.dotted.startswith("typing.") for s in self.syms_here(node.value))

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

        inner = Context(
            self.policy, self.ctx.file, self.ctx.local_modules, self.ctx.nesting + 1
        )
        found = analyse_text(text, inner)
        if not keep_syntax_errors and any(f.strategy == "ast_structure" for f in found):
            return  # not code after all (a label, a Literal value): nothing will evaluate it
        for f in found:
            self.report(f.strategy, node, f"in {label} (its line {f.line}): {f.message}")

    # -- expressions

    def type_problem(self, node: ast.AST, scope: Scope, depth: int = 0) -> str | None:
        """None when ``node`` is a plain type expression in ``scope``, else what is wrong."""
        if depth > _MAX_DEPTH:
            return "type expressions nested too deeply to follow"
        if isinstance(node, ast.Constant):
            return self.constant_type_problem(node, scope, depth)
        if isinstance(node, ast.Name):
            return self.name_static_problem(scope, node.id, depth)
        if isinstance(node, ast.Attribute):
            return self.attribute_type_problem(node, scope, depth)
        if isinstance(node, ast.Subscript):
            return self.subscript_type_problem(node, scope, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.type_problem(node.left, scope, depth + 1) or self.type_problem(
                node.right, scope, depth + 1
            )
        if isinstance(node, ast.Starred):
            return self.type_problem(node.value, scope, depth + 1)
        return f"{_kind(node)} is not a type"

    def constant_type_problem(self, node: ast.Constant, scope: Scope, depth: int) -> str | None:
        value = node.value
        if value is None or value is Ellipsis:
            return None
        if not isinstance(value, str):
            return f"the constant {_short(repr(value))} is not a type"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                parsed = ast.parse(value.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return f"the string {_short(value)!r} is not an expression"
        return self.type_problem(parsed.body, scope, depth + _STRING_STEP)

    def attribute_type_problem(self, node: ast.Attribute, scope: Scope, depth: int) -> str | None:
        chain: list[str] = []
        root: ast.expr = node
        while isinstance(root, ast.Attribute):
            chain.append(root.attr)
            root = root.value
        if not isinstance(root, ast.Name):
            return f"an attribute of {_kind(root)}"
        dotted = ".".join([root.id, *reversed(chain)])
        private = [a for a in chain if a.startswith("_")]
        if private:
            return f"{dotted} reads {private[0]}"
        problem = self.name_static_problem(scope, root.id, depth + 1)
        if problem is not None:
            return problem
        roots = self.syms_of(root, scope)
        if not roots or any(s.kind != "module" for s in roots):
            return f"{dotted} is an attribute of something other than a module"
        for sym in self.syms_of(node, scope):
            if sym.kind == "member" and self.is_local(sym.module):
                problem = self.local_static_problem(sym.module, sym.name, depth + 1)
                if problem is not None:
                    return problem
        return None

    def subscript_type_problem(self, node: ast.Subscript, scope: Scope, depth: int) -> str | None:
        problem = self.type_problem(node.value, scope, depth + 1)
        if problem is not None:
            return problem
        kinds = {s.dotted for s in self.syms_of(node.value, scope)}
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if kinds == {"typing.Literal"}:
            return next(filter(None, (self.value_problem(e, scope, depth) for e in elts)), None)
        if kinds == {"typing.Annotated"} and elts:
            first, *meta = elts
            found = [self.type_problem(first, scope, depth + 1)]
            found += [self.value_problem(m, scope, depth) for m in meta]
            return next(filter(None, found), None)
        for elt in elts:
            parts = elt.elts if isinstance(elt, ast.List) else [elt]  # Callable[[A, B], R]
            for part in parts:
                problem = self.type_problem(part, scope, depth + 1)
                if problem is not None:
                    return problem
        return None

    def value_problem(self, node: ast.expr, scope: Scope, depth: int) -> str | None:
        """A ``Literal`` value or ``Annotated`` metadata: a constant or an enum member."""
        if isinstance(node, ast.Constant):
            return None
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, (ast.USub, ast.UAdd))
            and isinstance(node.operand, ast.Constant)
        ):
            return None
        chain = node
        while isinstance(chain, ast.Attribute) and not chain.attr.startswith("_"):
            chain = chain.value
        if isinstance(chain, ast.Name):
            return self.name_static_problem(scope, chain.id, depth + 1)
        return f"{_kind(node)} as a Literal value or metadata"

    # -- names and their bindings

    def name_static_problem(self, scope: Scope, name: str, depth: int) -> str | None:
        """None when every binding of ``name`` holds a class, a type or an import."""
        if _is_dunder(name):
            return f"{name} is an interpreter name"
        bindings, fallback = self.resolve(scope, name)
        if not bindings:
            if fallback and name in BUILTIN_NAMES:
                return None
            return f"{name} is not defined in this module"
        for binding in bindings:
            problem = self.binding_static_problem(binding, name, depth)
            if problem is not None:
                return problem
        return None

    def binding_static_problem(self, binding: Binding, name: str, depth: int) -> str | None:
        if binding.kind == "import":
            for sym in binding.syms:
                if sym.kind == "member" and self.is_local(sym.module):
                    problem = self.local_static_problem(sym.module, sym.name, depth + 1)
                    if problem is not None:
                        return problem
            return None
        unseen = f"{name} (line {binding.line}) holds a value the validator cannot see"
        if isinstance(binding.node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        if binding.kind != "value" or isinstance(binding.node, ast.arg):
            return unseen  # a parameter, a loop or with target, an exception
        if binding.value is None or binding.scope is None:
            return unseen
        key = id(binding)
        if key in self._type_active:
            return None  # a cycle adds nothing new
        self._type_active.add(key)
        try:
            problem = self.static_value_problem(binding.value, binding.scope, depth + 1)
        finally:
            self._type_active.discard(key)
        return None if problem is None else f"{name} (line {binding.line}): {problem}"

    def static_value_problem(self, value: ast.expr, scope: Scope, depth: int) -> str | None:
        """A type alias's value, or a base class: a type expression or a type factory's result."""
        if isinstance(value, ast.Call):
            return self.factory_problem(value, scope, depth)
        return self.type_problem(value, scope, depth)

    def factory_problem(self, call: ast.Call, scope: Scope, depth: int) -> str | None:
        factories = self.policy.type_factories
        syms = self.syms_of(call.func, scope)
        if not syms or any(self.sym_key(s) not in factories for s in syms):
            return "a call that is not one of the policy's type factories"
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            return "a type factory called with arguments from a sequence or mapping"
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            problem = self.factory_argument_problem(arg, scope, depth + 1)
            if problem is not None:
                return problem
        return None

    def factory_argument_problem(self, arg: ast.expr, scope: Scope, depth: int) -> str | None:
        """Names and values are constants; types are type expressions (strings included)."""
        if isinstance(arg, ast.Constant):
            return None  # names, values, forward references that nothing evaluates
        if isinstance(arg, (ast.Tuple, ast.List, ast.Set)):
            parts = list(arg.elts)
        elif isinstance(arg, ast.Dict):
            if not all(isinstance(k, ast.Constant) for k in arg.keys):
                return "a mapping with computed keys"
            parts = list(arg.values)
        else:
            return self.type_problem(arg, scope, depth + 1)
        for part in parts:
            problem = self.factory_argument_problem(part, scope, depth + 1)
            if problem is not None:
                return problem
        return None

    def local_static_problem(self, module: str, name: str, depth: int) -> str | None:
        """The same judgement for ``name`` in another of the candidate's modules."""
        modules = self.ctx.modules
        if modules is None:
            return f"{module}.{name} is in another module, whose source was not given"
        return modules.static_problem(module, name, depth)

    def module_name_static_problem(self, name: str, depth: int) -> str | None:
        """``name_static_problem`` at this module's top level (asked from a sibling)."""
        bindings = self.module_scope.bindings.get(name)
        if not bindings:
            return f"{self.ctx.file} defines no {name}"
        for binding in bindings:
            problem = self.binding_static_problem(binding, name, depth)
            if problem is not None:
                return problem
        return None
