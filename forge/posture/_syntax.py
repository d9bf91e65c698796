"""The syntax-form strategies of one posture analysis (``ast_structure``).

Pass 1 (``structure``): size limits, the encoding cookie, parse and compile errors,
the number of nodes and the nesting depth, and the syntax forms: every kind of syntax
node must be one the policy names (``syntax``), so that a form a later Python adds (a
lazily evaluated ``type`` alias, a template string) is refused until a policy allows it.
When the code cannot be parsed or is too deep to analyse safely, nothing else runs.  At
uses: ``global``/``nonlocal`` declarations of interpreter names, oversized literals and
strings that name denied attributes, and definitions (``def``, ``class``).
"""

from __future__ import annotations

import ast
import codecs
import re
import warnings

from ._classes import _Classes
from ._scope import _is_dunder

__all__: list[str] = []

_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)


class _Syntax(_Classes):
    """Limits, parsing and compiling; declarations, literals and definitions."""

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
            kind = type(node).__name__
            if kind not in self._syntax:
                self.report(
                    "ast_structure",
                    node if hasattr(node, "lineno") else (1, 1),
                    f"the syntax form {kind} is not one policy {self.policy.name} allows",
                )
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

    def check_declaration(self, node: ast.Global | ast.Nonlocal) -> None:
        word = "global" if isinstance(node, ast.Global) else "nonlocal"
        p = self.policy
        for name in node.names:
            if (
                _is_dunder(name)
                or name in p.reserved_names
                or name in p.forbidden_builtins
                or name in p.name_arguments
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
        self.check_binding(node.name, node, self.scope(node))
        if isinstance(node, ast.ClassDef):
            self.check_class(node)
