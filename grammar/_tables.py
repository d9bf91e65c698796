"""The parser's tables as plain data: what the driver needs from Lark, without Lark.

Lark compiles ``requirements.lark`` into LALR(1) tables and, per rule, a callback: the
transformer's method, wrapped by Lark's child filter (which splices in the children of
the helper rules Lark makes for ``x*``/``x+``) or by its single-child expansion (``?rule``),
or a bare ``Tree`` for the helper rules themselves.  ``from_lark`` reads all of that into
``Tables`` (integers, names and small lists), which is written to the per-user cache as
JSON.  ``callbacks`` rebuilds the same callbacks over a transformer, so a process that
finds the cache never imports Lark (about 25 ms of every start).  ``from_lark`` refuses
a callback shape it does not know (``TableShapeError``), and the caller then keeps
Lark's own objects: nothing is guessed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from derivative._record import record

FORMAT = 1
"""The version of this layout (part of the cache key)."""

Spec = list[Any]
"""A callback: ``["call", name]``, ``["tree", name]``, ``["expand1", Spec]`` or
``["filter", [[index, splice], ...], Spec]``; None for a unit reduction."""


class TableShapeError(Exception):
    """Lark built a callback this module cannot describe."""


@record
class Tables:
    actions: dict[int, dict[str, int]]
    start_state: int
    end_state: int
    rule_size: list[int]
    rule_origin: list[str]
    rule_spec: list[Spec | None]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "actions": {str(s): acts for s, acts in self.actions.items()},
            "start_state": self.start_state,
            "end_state": self.end_state,
            "rule_size": self.rule_size,
            "rule_origin": self.rule_origin,
            "rule_spec": self.rule_spec,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Tables:
        if data.get("format") != FORMAT:
            raise ValueError("not this layout")
        return Tables(
            {int(s): dict(acts) for s, acts in data["actions"].items()},
            int(data["start_state"]),
            int(data["end_state"]),
            [int(n) for n in data["rule_size"]],
            [str(o) for o in data["rule_origin"]],
            list(data["rule_spec"]),
        )


class _Node:
    """Stands in for ``lark.Tree`` as the value of a helper rule (only its children are read)."""

    __slots__ = ("children", "data")

    def __init__(self, data: str, children: list[Any]) -> None:
        self.data = data
        self.children = children


def callbacks(tables: Tables, transformer: Any) -> list[Callable[[list[Any]], Any] | None]:
    """The rule callbacks over ``transformer``, as Lark would have built them."""
    return [None if spec is None else _build(spec, transformer) for spec in tables.rule_spec]


def _build(spec: Spec, transformer: Any) -> Callable[[list[Any]], Any]:
    kind = spec[0]
    if kind == "call":
        fn: Callable[[list[Any]], Any] = getattr(transformer, spec[1])
        return fn
    if kind == "tree":
        return functools.partial(_Node, spec[1])
    if kind == "expand1":
        inner = _build(spec[1], transformer)

        def expand1(children: list[Any]) -> Any:
            return children[0] if len(children) == 1 else inner(children)

        return expand1
    if kind == "filter":
        include = [(int(i), bool(splice)) for i, splice in spec[1]]
        node = _build(spec[2], transformer)

        def child_filter(children: list[Any]) -> Any:
            kept: list[Any] = []
            for i, splice in include:
                if splice:
                    if kept:
                        kept.extend(children[i].children)
                    else:
                        # A left-recursive helper rule (``x*``) comes first: take over its
                        # list instead of copying it, or a list of n items costs n^2.
                        kept = children[i].children
                else:
                    kept.append(children[i])
            return node(kept)

        return child_filter
    raise TableShapeError(f"unknown callback kind {kind!r}")


def from_lark(parser: Any, transformer: Any) -> Tables:
    """The tables and callback shapes of a compiled ``lark.Lark`` (LALR) instance."""
    tables, _ = walk(parser, lambda cb, rule: _spec_of(cb, rule, transformer))
    return tables


def walk(parser: Any, describe: Callable[[Any, Any], Any]) -> tuple[Tables, list[Any]]:
    """Lark's tables encoded for the driver, and ``describe(callback, rule)`` of each rule
    that is not a unit reduction (None for those): the shapes for the cache, or Lark's
    own callbacks when a shape cannot be described."""
    from lark.parsers.lalr_analysis import Shift

    inner = parser.parser.parser.parser
    table = inner.parse_table
    rule_ids: dict[Any, int] = {}
    sizes: list[int] = []
    origins: list[str] = []
    described: list[Any] = []
    actions: dict[int, dict[str, int]] = {}
    for state, acts in table.states.items():
        encoded: dict[str, int] = {}
        for lark_sym, (action, arg) in acts.items():
            sym = str(lark_sym)
            if action is Shift:
                encoded[sym] = int(arg)
                continue
            rid = rule_ids.get(arg)
            if rid is None:
                rid = rule_ids[arg] = len(sizes)
                sizes.append(len(arg.expansion))
                origins.append(str(arg.origin.name))
                unit = arg.options.expand1 and len(arg.expansion) == 1 and not arg.alias
                described.append(None if unit else describe(inner.callbacks[arg], arg))
            encoded[sym] = ~rid
        actions[int(state)] = encoded
    tables = Tables(
        actions,
        int(table.start_states["start"]),
        int(table.end_states["start"]),
        sizes,
        origins,
        [d if isinstance(d, list) else None for d in described],
    )
    return tables, described


def _spec_of(cb: Any, rule: Any, transformer: Any) -> Spec:
    from lark.tree import Tree

    kind = type(cb).__name__
    if kind == "ExpandSingleChild":
        return ["expand1", _spec_of(cb.node_builder, rule, transformer)]
    if kind == "ChildFilterLALR_NoPlaceholders":
        include = [[int(item[0]), bool(item[1])] for item in cb.to_include]
        if any(len(item) != 2 for item in cb.to_include):
            raise TableShapeError("a child filter with placeholders")
        return ["filter", include, _spec_of(cb.node_builder, rule, transformer)]
    if isinstance(cb, functools.partial) and cb.func is Tree and len(cb.args) == 1:
        return ["tree", str(cb.args[0])]
    name = str(rule.alias or rule.options.template_source or rule.origin.name)
    if getattr(transformer, name, None) == cb:
        return ["call", name]
    raise TableShapeError(f"cannot describe the callback of {rule}: {cb!r}")
