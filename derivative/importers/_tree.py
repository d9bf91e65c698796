"""The syntax tree of a condition read from an export, and walking it.

``_expr`` reads conditions into these nodes and writes them in derivative's syntax;
``_exprtypes`` infers and checks their types.  ``Untranslatable`` is how any step says
that a requirement has no timed counterpart, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, TypeAlias

from derivative._record import record

__all__ = [
    "BECOMES",
    "PAST_FORMS",
    "Bin",
    "Bool",
    "Call",
    "Name",
    "Node",
    "Num",
    "Un",
    "Untranslatable",
    "calls_in",
    "children",
    "names_in",
]


class Untranslatable(Exception):
    """Control flow: a requirement (or a part of it) has no timed counterpart; ``reason``
    says why in a few words.  Caught by the importer, which lists the requirement."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@record
class Name:
    name: str


@record
class Num:
    text: str
    """Decimal text in derivative's syntax (``3``, ``0.5``)."""

    @property
    def is_real(self) -> bool:
        return "." in self.text


@record
class Bool:
    value: bool


@record
class Un:
    op: str  # "not" | "neg"
    operand: Node


@record
class Bin:
    op: str  # "iff" "implies" "or" "xor" "and" "==" "!=" "<" "<=" ">" ">=" "+" "-" "*" "/" "%" "**"
    left: Node
    right: Node


@record
class Call:
    function: str
    args: tuple[Node, ...]


Node: TypeAlias = "Name | Num | Bool | Un | Bin | Call"

BECOMES: Final = "@becomes"
"""The function name of ``E becomes true`` in a tree (no export can spell it)."""

PAST_FORMS: Final = ("preBool", "persisted", "occurred", BECOMES)

def children(node: Node) -> Iterator[Node]:
    if isinstance(node, Un):
        yield node.operand
    elif isinstance(node, Bin):
        yield node.left
        yield node.right
    elif isinstance(node, Call):
        yield from node.args


def calls_in(node: Node) -> set[str]:
    """The functions a condition calls (the past forms included)."""
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Call):
            out.add(n.function)
        stack.extend(children(n))
    return out


def names_in(node: Node) -> list[str]:
    """The names a condition reads, in order of first appearance."""
    out: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Name) and n.name not in out:
            out.append(n.name)
        stack.extend(reversed(list(children(n))))
    return out
