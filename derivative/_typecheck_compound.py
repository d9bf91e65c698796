"""Type checks of tuples, optionals and dicts (docs/language.md §6.5-6.7).

Kept apart from the scalar and list rules: the written types ``tuple[...]``,
``optional[T]`` and ``dict[K, V]`` are resolved by ``resolve_compound``, and
``CompoundChecks`` (a part of ``ExprChecker``) types their literals, indexing,
membership in a dict and the built-ins ``get``, ``keys`` and ``value``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from derivative._ast import (
    Call,
    DictLit,
    DictType,
    Expr,
    Index,
    IntLit,
    NoneLit,
    OptionalType,
    TupleLit,
    TupleType,
    TypeRef,
    Unary,
)
from derivative._typecheck_base import ExprCheckerBase
from derivative._types import (
    NONE,
    TAny,
    TDict,
    TInt,
    TList,
    TNone,
    TOptional,
    TRange,
    TStr,
    TTuple,
    Ty,
    base,
    comparable,
    join,
)

Resolver = Callable[[TypeRef], Ty]
Report = Callable[[str, str | None], None]

KEY_TYPES: Final = "int or str"
"""What a dict's keys may be: the types with one total order in every reading, so that
``keys(d)`` is sorted and two equal dicts have one form (docs/language.md §6.7)."""


def is_key_type(t: Ty) -> bool:
    """Whether ``t`` may be a dict's key type (``any`` passes: ``{}``, or an error)."""
    return isinstance(t, (TInt, TStr, TAny))


def resolve_compound(ref: TypeRef, resolve: Resolver, report: Report) -> Ty | None:
    """``ref`` resolved if it is a tuple, optional or dict type (else None)."""
    if isinstance(ref, TupleType):
        items = tuple(resolve(t) for t in ref.items)
        return TTuple(items)
    if isinstance(ref, OptionalType):
        elem = resolve(ref.elem)
        if isinstance(elem, TOptional):
            report(
                "`optional[optional[T]]` is not a type: none is none",
                "write optional[T]",
            )
            return elem
        return TOptional(elem)
    if isinstance(ref, DictType):
        key = resolve(ref.key)
        value = resolve(ref.value)
        if not is_key_type(key):
            report(
                f"the keys of a dict must be {KEY_TYPES}, not {key.show()}",
                "write e.g. dict[str, int]",
            )
            key = TAny()
        return TDict(key, value)
    return None


def tuple_position(index: Expr) -> int | None:
    """The position an index expression names, when it is an integer literal."""
    if isinstance(index, IntLit):
        return index.value
    if isinstance(index, Unary) and index.op == "-" and isinstance(index.operand, IntLit):
        return -index.operand.value
    return None


class CompoundChecks(ExprCheckerBase):
    """Tuples, ``none`` and dicts, for ``ExprChecker``."""

    def visit_tuple(self, node: TupleLit) -> Ty:
        items: list[Ty] = []
        for item in node.items:
            t = self.visit(item)
            if isinstance(t, TRange):
                t = self.err(item, "a range LO..HI may only follow `in` or `not in`")
            items.append(base(t))
        return TTuple(tuple(items))

    def visit_none(self, node: NoneLit) -> Ty:
        return NONE

    def visit_dict(self, node: DictLit) -> Ty:
        key: Ty = TAny()
        value: Ty = TAny()
        for k_node, v_node in zip(node.keys, node.values, strict=True):
            k, v = self.visit(k_node), self.visit(v_node)
            jk, jv = join(key, k), join(value, v)
            if jk is None or isinstance(k, TRange):
                self.err(k_node, f"dict keys must have one type: {key.show()} and {k.show()}")
            elif not is_key_type(jk):
                self.err(k_node, f"the keys of a dict must be {KEY_TYPES}, not {k.show()}")
            else:
                key = jk
            if jv is None or isinstance(v, TRange):
                self.err(v_node, f"dict values must have one type: {value.show()} and {v.show()}")
            else:
                value = jv
        return TDict(base(key), base(value))

    def compound_index(self, node: Index, b: Ty) -> Ty:
        """``t[k]`` of a tuple (``k`` a literal) or ``d[key]`` of a dict."""
        if isinstance(b, TDict):
            k = self.visit(node.index)
            if not isinstance(k, TAny) and not comparable(b.key, k):
                message = f"a key of a {b.show()} must be {b.key.show()}, not {k.show()}"
                self.err(node.index, message)
            return b.value
        assert isinstance(b, TTuple)
        pos = tuple_position(node.index)
        if pos is None:
            self.visit(node.index)
            return self.err(
                node.index,
                "a tuple is indexed by an integer literal",
                f"write e.g. t[0] .. t[{len(b.items) - 1}]",
            )
        n = len(b.items)
        if not -n <= pos < n:
            return self.err(
                node.index,
                f"index {pos} is out of range for a {b.show()}",
                f"a {b.show()} has items 0..{n - 1}",
            )
        return b.items[pos]

    def dict_membership(self, op: str, lnode: Expr, left: Ty, right: TDict) -> None:
        if not isinstance(right.key, TAny) and not comparable(left, right.key):
            self.err(lnode, f"`{op}` looks for a key of a {right.show()}, not {left.show()}")

    # ------------------------------------------------------------------ built-ins

    def _builtin_get(self, node: Call, args: list[Ty]) -> Ty:
        d = args[0]
        if isinstance(d, TAny):
            return TAny()
        if not isinstance(d, TDict):
            return self.err(node.args[0], f"get() needs a dict, not {d.show()}")
        k = args[1]
        if not isinstance(k, TAny) and not comparable(d.key, k):
            self.err(node.args[1], f"get() looks for a key of a {d.show()}, not {k.show()}")
        if len(args) == 2:
            return d.value if isinstance(d.value, (TOptional, TAny)) else TOptional(d.value)
        default = args[2]
        j = join(d.value, default)
        if j is None or (isinstance(default, TNone) and not isinstance(d.value, TOptional)):
            return self.err(
                node.args[2],
                f"the default of get() must be a {d.value.show()}, not {default.show()}",
            )
        return base(j)

    def _builtin_keys(self, node: Call, args: list[Ty]) -> Ty:
        d = args[0]
        if isinstance(d, TAny):
            return TAny()
        if not isinstance(d, TDict):
            return self.err(node.args[0], f"keys() needs a dict, not {d.show()}")
        return TList(d.key)

    def _builtin_value(self, node: Call, args: list[Ty]) -> Ty:
        t = args[0]
        if isinstance(t, TAny):
            return t
        if not isinstance(t, TOptional):
            hint = "a value that is not optional needs no value()"
            return self.err(node.args[0], f"value() needs an optional, not {t.show()}", hint)
        return t.elem

