"""Type checks of calls: the built-in functions, and spec functions where they may be called.

One method ``_builtin_<name>`` per name of ``derivative._builtins.BUILTIN_FUNCTIONS``
(the arity is checked from that table before the method runs); a test holds the two
in step.  Spec functions and operations may only be called as the CALL of their own
examples, which ``Ctx.callables`` lists.
"""

from __future__ import annotations

from typing import Final

from derivative import _regex
from derivative._ast import Call, StrLit
from derivative._builtins import BUILTIN_FUNCTIONS, takes
from derivative._typecheck_base import (
    ExprCheckerBase,
    did_you_mean,
    is_int,
    is_num,
    is_ordered,
    is_str,
    plural,
)
from derivative._typecheck_positions import regex_column
from derivative._types import (
    BOOL,
    INT,
    REAL,
    STR,
    TAny,
    TDict,
    TList,
    TReal,
    TStr,
    TTuple,
    Ty,
    base,
    comparable,
    join,
)

_REGEX_SHAPE_HINT: Final = 'write the pattern as a string literal, e.g. matches(s, "[0-9]+")'

_OWN_ARGS: Final = frozenset({"matches"})
"""Built-ins whose method visits its own arguments (the pattern of ``matches`` is read
as a literal, not typed as an expression)."""


class CallChecks(ExprCheckerBase):
    """The checks of ``Call`` nodes, shared by ``ExprChecker``."""

    def visit_call(self, node: Call) -> Ty:
        spec = BUILTIN_FUNCTIONS.get(node.func)
        if spec is None:
            return self._spec_call(node)
        lo, hi, shape = spec
        n = len(node.args)
        if not takes(node.func, n):
            want = plural(lo, "argument") if lo == hi else f"at least {plural(lo, 'argument')}"
            if node.func in ("min", "max"):
                want = "two or more arguments, or one list"
            for a in node.args:
                self.visit(a)
            return self.err(node, f"{node.func}() takes {want} ({n} given)", f"write {shape}")
        args = [] if node.func in _OWN_ARGS else [self.visit(a) for a in node.args]
        method = getattr(self, "_builtin_" + node.func)
        result: Ty = method(node, args)
        return result

    def _spec_call(self, node: Call) -> Ty:
        for a in node.args:
            self.visit(a)
        sig = self.ctx.callables.get(node.func)
        if sig is not None:
            return sig.returns
        info = self.state.info
        if node.func in info.signatures or any(
            k.endswith("." + node.func) for k in info.signatures
        ):
            return self.err(
                node,
                f"{node.func!r} is a spec function; it can only be called as the CALL of its "
                "own examples (`CALL == VALUE`, `CALL raises E`)",
                "state what it must do with requires/ensures over its parameters and result",
            )
        if node.func in ("all", "any"):
            return self.err(
                node, f"{node.func}() takes a generator", f"write {node.func}(E for x in xs)"
            )
        if node.func == "date":
            return self.err(node, 'date(...) takes one literal string "YYYY-MM-DD"')
        return self.err(
            node,
            f"unknown function {node.func!r}",
            did_you_mean(node.func, [*BUILTIN_FUNCTIONS, "all", "any"]),
        )

    def _builtin_matches(self, node: Call, args: list[Ty]) -> Ty:
        s = self.visit(node.args[0])
        if not is_str(s):
            self.err(node.args[0], f"matches() needs a str, not {s.show()}")
        pattern = node.args[1]
        if not isinstance(pattern, StrLit):
            self.visit(pattern)
            self.err(
                pattern, "the pattern of matches() must be a string literal", _REGEX_SHAPE_HINT
            )
            return BOOL
        try:
            _regex.check(pattern.value)
        except _regex.RegexError as exc:
            line = pattern.line or self.ctx.line
            col = pattern.col or self.ctx.column
            if pattern.line:
                col = regex_column(self.ctx.file, line, col, exc.offset, pattern.value)
            self.state.error(
                f"unsupported regular expression: {exc.message}",
                self.ctx.file,
                line,
                col,
                "the supported subset is in docs/language.md §7.8",
            )
        return BOOL

    def _one(self, node: Call, t: Ty, ok: bool, what: str) -> bool:
        if not ok:
            self.err(node.args[0], f"{node.func}() needs {what}, not {t.show()}")
        return ok

    def _builtin_len(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        self._one(
            node, t, isinstance(t, (TStr, TList, TTuple, TDict, TAny)), "a str, list, tuple or dict"
        )
        return INT

    def _builtin_abs(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        if not self._one(node, t, is_num(t), "an int or real"):
            return TAny()
        return base(t)

    def _extreme(self, node: Call, args: list[Ty]) -> Ty:
        if len(args) == 1:
            t = args[0]
            if isinstance(t, TList) and is_ordered(t.elem):
                return t.elem
            if isinstance(t, TAny):
                return t
            return self.err(
                node.args[0],
                f"{node.func}() of one argument needs a list of int, real, str or date, "
                f"not {t.show()}",
                f"write {node.func}(a, b) to compare two values",
            )
        acc: Ty = TAny()
        for a_node, t in zip(node.args, args, strict=True):
            j = join(acc, t)
            if j is None or not is_ordered(t):
                return self.err(
                    a_node,
                    f"{node.func}() needs values of one ordered type (int, real, str, date), "
                    f"got {t.show()}" + ("" if isinstance(acc, TAny) else f" after {acc.show()}"),
                )
            acc = j
        return base(acc)

    def _builtin_min(self, node: Call, args: list[Ty]) -> Ty:
        return self._extreme(node, args)

    def _builtin_max(self, node: Call, args: list[Ty]) -> Ty:
        return self._extreme(node, args)

    def _builtin_sum(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        if isinstance(t, TAny):
            return t
        if not self._one(
            node, t, isinstance(t, TList) and is_num(t.elem), "a list of int or real"
        ):
            return TAny()
        assert isinstance(t, TList)
        return REAL if isinstance(t.elem, TReal) else INT

    def _builtin_int(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        hint = None
        if isinstance(t, TReal):
            hint = "there is no real-to-int conversion; use // for floor division"
        if not is_str(t):
            self.err(node.args[0], f"int() needs a str, not {t.show()}", hint)
        return INT

    def _builtin_str(self, node: Call, args: list[Ty]) -> Ty:
        self._one(node, args[0], is_int(args[0]), "an int")
        return STR

    def _strs(self, node: Call, args: list[Ty]) -> Ty:
        for a_node, t in zip(node.args, args, strict=True):
            if not is_str(t):
                self.err(a_node, f"{node.func}() needs str arguments, not {t.show()}")
        return BOOL

    def _builtin_startswith(self, node: Call, args: list[Ty]) -> Ty:
        return self._strs(node, args)

    def _builtin_endswith(self, node: Call, args: list[Ty]) -> Ty:
        return self._strs(node, args)

    def _builtin_contains(self, node: Call, args: list[Ty]) -> Ty:
        return self._strs(node, args)

    def _builtin_occurrences(self, node: Call, args: list[Ty]) -> Ty:
        xs, v = args
        if isinstance(xs, TAny):
            return INT
        if not isinstance(xs, TList):
            hint = "for strings use contains(s, p) or `p in s`" if isinstance(xs, TStr) else None
            self.err(node.args[0], f"occurrences() needs a list, not {xs.show()}", hint)
        elif not comparable(xs.elem, v):
            self.err(node.args[1], f"occurrences() looks for {v.show()} in a {xs.show()}")
        return INT

    def _builtin_sorted(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        if isinstance(t, TAny):
            return t
        if isinstance(t, TList) and is_ordered(t.elem):
            return t
        return self.err(
            node.args[0], f"sorted() needs a list of int, real, str or date, not {t.show()}"
        )


    def _builtin_product(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        if isinstance(t, TAny):
            return t
        if not self._one(
            node, t, isinstance(t, TList) and is_num(t.elem), "a list of int or real"
        ):
            return TAny()
        assert isinstance(t, TList)
        return REAL if isinstance(t.elem, TReal) else INT

    def _builtin_reversed(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        if isinstance(t, TList | TAny):
            return t
        hint = "a string reversed is s[len(s) - 1 - i] for each i" if isinstance(t, TStr) else None
        return self.err(node.args[0], f"reversed() needs a list, not {t.show()}", hint)

    # ------------------------------------------------------------------ text built-ins

    def _text(self, node: Call, args: list[Ty], result: Ty) -> Ty:
        """Every argument a str; the result ``result``."""
        for a_node, t in zip(node.args, args, strict=True):
            if not is_str(t):
                self.err(a_node, f"{node.func}() needs a str, not {t.show()}")
        return result

    def _builtin_lower(self, node: Call, args: list[Ty]) -> Ty:
        return self._text(node, args, STR)

    def _builtin_upper(self, node: Call, args: list[Ty]) -> Ty:
        return self._text(node, args, STR)

    def _builtin_strip(self, node: Call, args: list[Ty]) -> Ty:
        return self._text(node, args, STR)

    def _builtin_split(self, node: Call, args: list[Ty]) -> Ty:
        return self._text(node, args, TList(STR))

    def _builtin_join(self, node: Call, args: list[Ty]) -> Ty:
        sep, xs = args
        if isinstance(sep, TList) and isinstance(xs, TStr):
            self.err(
                node.args[0],
                f"join() needs a str separator, not {sep.show()}",
                "write join(sep, xs): the separator first",
            )
            return STR
        if not is_str(sep):
            self.err(node.args[0], f"join() needs a str separator, not {sep.show()}")
        if not (isinstance(xs, TAny) or (isinstance(xs, TList) and is_str(xs.elem))):
            self.err(node.args[1], f"join() needs a list[str], not {xs.show()}")
        return STR

    def _builtin_ord(self, node: Call, args: list[Ty]) -> Ty:
        return self._text(node, args, INT)

    def _builtin_chr(self, node: Call, args: list[Ty]) -> Ty:
        self._one(node, args[0], is_int(args[0]), "an int")
        return STR
