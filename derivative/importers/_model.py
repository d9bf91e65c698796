"""What an importer reads a requirement into, before it is written as a timed block.

A reader (``_fret``, ``_hanfor``) turns each source requirement into a ``Draft`` (its scope,
trigger, timing and response as condition trees, with names as the source spells them) or
a ``NotTranslated`` with the reason.  Names, types, directions and modes are settled later,
for a whole component at once (``_assemble``), because in an export without declarations
they follow from how every requirement uses a name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from derivative._record import record

from ._tree import Node

__all__ = [
    "AVOID",
    "Declared",
    "Draft",
    "ImportOptions",
    "ImportResult",
    "Names",
    "NotTranslated",
    "ScopeRef",
    "Translated",
    "identifier",
]

AVOID: Final = frozenset((
    # the reserved words of docs/language.md §12 (a test holds this list to the grammar's)
    "spec", "version", "use", "enum", "exception", "const", "param", "requirement",
    "function", "system", "operation", "invariant", "requires", "ensures", "raises", "when",
    "example", "bind", "to", "from", "forall", "exists", "in", "if", "then", "else", "and",
    "or", "not", "implies", "iff", "true", "false", "none", "result", "shall", "be", "at",
    "least", "most", "more", "less", "than", "between", "never", "count", "where", "per",
    "matching", "tolerance", "for",
    # the words of the timed layer, which it reads by position: a signal never takes one
    "timed", "input", "output", "mode", "always", "immediately", "the", "next", "step",
    "steps", "within", "after", "until", "before", "upon", "only", "previously", "has",
    "held", "occurred", "becomes",
    # type names, so that a declaration never reads ``int: int``
    "bool", "int", "real", "str", "date", "list", "dict", "tuple", "optional",
))
"""Words an imported name never becomes (it gets a trailing ``_`` instead)."""


def identifier(raw: str, *, prefix: str = "x") -> str:
    """``raw`` as an identifier of the language: other characters become ``_``, a leading
    digit gets ``prefix_`` before it, a reserved or timed word a trailing ``_``, and a run
    of ``_`` becomes one."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", raw.strip())
    if not text or text[0].isdigit():
        text = f"{prefix}_{text}"
    if text in AVOID:
        text += "_"
    return _single(text)


def _single(text: str) -> str:
    """No ``__`` in a name: the timed layer joins a signal and its step with it."""
    return re.sub(r"__+", "_", text)


class Names:
    """Hands out distinct identifiers in one namespace (``a``, ``a_2``, ``a_3``, ...)."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def take(self, raw: str, *, prefix: str = "x") -> str:
        base = identifier(raw, prefix=prefix)
        name, n = base, 1
        while name in self.taken:
            n += 1
            name = _single(f"{base}_{n}")
        self.taken.add(name)
        return name


@dataclass(frozen=True, kw_only=True)
class ImportOptions:
    """How to import (``derivative import fret|hanfor``)."""

    name: str | None = None
    """The spec's name (default: the export's project, else the file's stem)."""
    component: str | None = None
    """Hanfor only: the timed block's name (default: the ``Component`` column, else
    ``system``)."""


@dataclass(frozen=True, kw_only=True)
class Declared:
    """A variable as an export declares it."""

    name: str
    direction: str = "infer"
    """``input``, ``output``, ``mode`` (a mode defined by a condition, not a signal) or
    ``infer`` (from the requirements: ``output`` when a response reads it)."""
    type: str | None = None
    """A type of the language; None when the export leaves it open (inferred)."""
    refused: str | None = None
    """Why a requirement that reads this variable cannot be translated (an unsupported
    data type, a function); None when it can."""
    mode_condition: Node | None = None
    """For a FRET ``Mode`` variable: its ``modeRequirement``, read."""
    mode_text: str | None = None
    """The same as the export writes it (for messages)."""


@dataclass(frozen=True, kw_only=True)
class ScopeRef:
    """A scope: its kind (``in``, ``not in``, ``only in``, ``before``, ``after``) and the
    mode it names, either by name (FRET) or by a condition (Hanfor's ``P``)."""

    kind: str
    mode: str | None = None
    condition: Node | None = None


@dataclass(frozen=True, kw_only=True)
class Draft:
    """One requirement read from an export, names as the export spells them."""

    source_id: str
    component: str
    text: str
    tags: tuple[tuple[str, str], ...]
    scope: ScopeRef | None
    trigger: tuple[str, Node] | None
    """``("when" | "upon", condition)``."""
    timing: str
    """``always``, ``never``, ``immediately``, ``next``, ``within``, ``for``, ``after``,
    ``until``, ``before``."""
    response: Node
    steps: int | None = None
    stop: Node | None = None


@record
class NotTranslated:
    """A source requirement that has no timed counterpart here, and why."""

    source_id: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.source_id, "reason": self.reason}


@record
class Translated:
    """A requirement written: its identifier in the ``.req`` file and in the export."""

    id: str
    source_id: str


@dataclass(frozen=True, kw_only=True)
class ImportResult:
    """What an import wrote: the ``.req`` text and the account of every source row."""

    source: str
    kind: str
    """``fret`` or ``hanfor``."""
    text: str
    translated: tuple[Translated, ...] = ()
    untranslated: tuple[NotTranslated, ...] = ()
    skipped: tuple[NotTranslated, ...] = field(default=())
    """Rows that are not requirements (a Hanfor heading or information row)."""

    def to_json(self) -> dict[str, Any]:
        """The ``derivative.import/v1`` report (docs/importers.md)."""
        return {
            "format": "derivative.import/v1",
            "kind": self.kind,
            "source": self.source,
            "translated": [{"id": t.id, "source_id": t.source_id} for t in self.translated],
            "untranslated": [u.to_json() for u in self.untranslated],
            "skipped": [s.to_json() for s in self.skipped],
        }
