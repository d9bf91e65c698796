"""``derivative import hanfor``: a Hanfor CSV export to timed requirements.

Hanfor formalises a requirement as a scope (``Globally``, ``Before P``, ``After P``,
``Between P and Q``, ``After P until Q``) and a specification pattern whose slots
(``R``, ``S``, ``T``, ...) hold conditions and durations.  The CSV this importer reads
(docs/importers.md, "Hanfor CSV") has a header line naming its columns, in any order and
any case: ``ID`` (required), ``Description``, ``Type``, ``Component``, ``Rationale``, and
the formalisation as Hanfor's own export writes it (``Hanfor_Formalization``: JSON), as
Hanfor's sentence (``Formalization``: one sentence a line, such
as ``Globally, it is always the case that if "R" holds, then "S" holds after at most "5"
time units``) or in columns (``Scope``, ``Pattern``, ``P``, ``Q``, ``R``, ``S``, ``T``,
``U``, ``V``).  Each pattern with a timed counterpart maps to one timed body
(``_patterns``); the rest (``Existence`` is liveness, ``Precedence`` an unbounded past,
``Between`` a scope closed by a second condition) are listed with the reason.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Final

from derivative._errors import SourcePos
from derivative._record import record
from derivative._strictjson import JSONRefused
from derivative._strictjson import loads as strict_loads

from ._assemble import assemble
from ._expr import parse
from ._input import BadExport, read_csv
from ._model import Draft, ImportOptions, ImportResult, NotTranslated, ScopeRef
from ._patterns import PATTERNS, Pattern, by_name
from ._tree import Untranslatable

__all__ = ["import_hanfor"]

_SLOT = r'"(?P<{}>[^"]*)"'

_SCOPES: Final = (
    ("Globally", re.compile(r"globally\s*,\s*", re.I)),
    ("Before", re.compile(r"before\s+" + _SLOT.format("P") + r"\s*,\s*", re.I)),
    ("AfterUntil", re.compile(r"after\s+" + _SLOT.format("P") + r"\s+until\s+"
                              + _SLOT.format("Q") + r"\s*,\s*", re.I)),
    ("After", re.compile(r"after\s+" + _SLOT.format("P") + r"\s*,\s*", re.I)),
    ("Between", re.compile(r"between\s+" + _SLOT.format("P") + r"\s+and\s+"
                           + _SLOT.format("Q") + r"\s*,\s*", re.I)),
)


def _key(text: str) -> str:
    return re.sub(r"[\s_]", "", text).lower()


def _sentence(text: str) -> tuple[str, Pattern, dict[str, str]]:
    """(scope, pattern, slots) of one of Hanfor's formalised sentences."""
    for scope, rx in _SCOPES:
        m = rx.match(text.strip())
        if m is None:
            continue
        slots = {k: v for k, v in m.groupdict().items() if v is not None}
        rest = text.strip()[m.end():]
        for pattern in PATTERNS:
            pm = pattern.regex().fullmatch(rest)
            if pm is not None:
                return scope, pattern, {**slots, **pm.groupdict()}
        raise Untranslatable(f"the pattern sentence {rest.strip()[:80]!r} is not one the "
                             "importer knows")
    raise Untranslatable(f"the scope of {text.strip()[:80]!r} is not one the importer knows "
                         "(Globally, Before, After, Between, After ... until)")


def _scope(scope: str, slots: Mapping[str, str]) -> ScopeRef | None:
    key = _key(scope)
    if key in ("globally", "global", ""):
        return None
    if key in ("before", "after"):
        text = slots.get("P", "").strip()
        if not text:
            raise Untranslatable(f"the scope {scope} needs P, which is empty")
        return ScopeRef(kind=key, condition=parse(text))
    if key in ("between", "afteruntil"):
        raise Untranslatable(f"the scope {scope} has no timed counterpart (an interval "
                             "closed by a second condition)")
    if key == "none":
        raise Untranslatable("no scope: Hanfor has not formalised it")
    raise Untranslatable(f"the scope {scope!r} is not one the importer knows")


@record
class _Row:
    line: int
    cells: Mapping[str, str]

    def get(self, key: str) -> str:
        return self.cells.get(key, "").strip()


Form = tuple[str, Pattern, dict[str, str]]
"""(scope, pattern, slots) of one formalisation."""


def _bad_cell(row: _Row, source: str, why: str) -> BadExport:
    return BadExport(f"the Hanfor_Formalization cell {why}", SourcePos(source, row.line, 1),
                     hint='Hanfor writes {"0": {"scope": "GLOBALLY", "pattern": "...", '
                     '"expressions": {"R": "..."}}}')


def _json_forms(row: _Row, source: str) -> list[Form] | None:
    """The formalisations of Hanfor's own CSV export: its ``Hanfor_Formalization`` column
    holds JSON, an object from a number to ``{"scope": "GLOBALLY", "pattern": NAME,
    "expressions": {"R": "...", ...}}`` (the scope by its name: ``GLOBALLY``, ``BEFORE``,
    ``AFTER``, ``BETWEEN``, ``AFTER_UNTIL``).  None when the row has no such cell."""
    cell = row.get("hanforformalization")
    if not cell:
        return None
    try:
        doc = strict_loads(cell)
    except JSONRefused as err:
        raise _bad_cell(row, source, f"is not JSON: {err}") from None
    if not isinstance(doc, dict):
        raise _bad_cell(row, source, "is not a JSON object of formalisations")
    forms: list[Form] = []
    for key in sorted(doc, key=lambda k: (len(k), k)):
        f = doc[key]
        exprs = f.get("expressions", {}) if isinstance(f, dict) else None
        if not (isinstance(f, dict) and isinstance(f.get("scope"), str)
                and isinstance(f.get("pattern"), str) and isinstance(exprs, dict)
                and all(isinstance(v, str) for v in exprs.values())):
            raise _bad_cell(row, source, f"has a formalisation {key!r} without a scope, a "
                            "pattern and expressions (text)")
        name = f["pattern"]
        pattern = by_name(name) or Pattern(name, "", refused="not a pattern the importer "
                                           "knows")
        forms.append((f["scope"], pattern, dict(exprs)))
    return forms


def _formalisations(row: _Row, source: str) -> list[Form]:
    exported = _json_forms(row, source)
    if exported is not None:
        if not exported:
            raise Untranslatable("no formalisation (the Hanfor_Formalization cell is empty)")
        return exported
    name = row.get("pattern")
    if name:
        pattern = by_name(name)
        if pattern is None:
            raise Untranslatable(f"the pattern {name!r} is not one the importer knows")
        slots = {k: row.get(k.lower()) for k in "PQRSTUV"}
        return [(row.get("scope"), pattern, slots)]
    sentences = [s for s in row.get("formalization").splitlines() if s.strip()]
    if not sentences:
        raise Untranslatable("no formalisation (neither Pattern nor Formalization is given)")
    return [_sentence(s) for s in sentences]


def _drafts(row: _Row, rid: str, component: str, source: str
            ) -> list[Draft | NotTranslated]:
    try:
        forms = _formalisations(row, source)
    except Untranslatable as why:
        return [NotTranslated(rid, why.reason)]
    out: list[Draft | NotTranslated] = []
    for k, (scope, pattern, slots) in enumerate(forms, 1):
        sid = rid if len(forms) == 1 else f"{rid}_f{k}"
        tags = [("hanfor", rid), ("pattern", pattern.name)]
        if row.get("rationale"):
            tags.append(("rationale", row.get("rationale")))
        try:
            trigger, timing, response, steps = pattern.body(slots, scope)
            draft: Draft | NotTranslated = Draft(
                source_id=sid, component=component, text=" ".join(row.get(
                    "description").split()), tags=tuple(tags), scope=_scope(scope, slots),
                trigger=trigger, timing=timing, response=response, steps=steps)
        except Untranslatable as why:
            draft = NotTranslated(sid, why.reason)
        out.append(draft)
    return out


_ALIASES = {"formalizedrequirement": "formalization", "formalisation": "formalization",
            "formalizations": "formalization", "formalisedrequirement": "formalization",
            "requirementid": "id", "comment": "rationale"}


def _rows(header: Sequence[str], body: Sequence[tuple[int, list[str]]], source: str
          ) -> list[_Row]:
    keys = [_ALIASES.get(_key(h), _key(h)) for h in header]
    if "id" not in keys:
        raise BadExport(f"{source}: the header names no ID column (columns: "
                        f"{', '.join(header)})")
    if not {"formalization", "pattern", "hanforformalization"} & set(keys):
        raise BadExport(f"{source}: the header names no Hanfor_Formalization, Formalization "
                        "or Pattern column, so there is nothing to translate")
    return [_Row(line, dict(zip(keys, cells, strict=True))) for line, cells in body]


def import_hanfor(text: str, *, source: str, options: ImportOptions | None = None
                  ) -> ImportResult:
    """Translate a Hanfor CSV export (its text; ``source`` names it in messages)."""
    options = options or ImportOptions()
    header, body = read_csv(text, source)
    items: list[Draft | NotTranslated] = []
    skipped: list[NotTranslated] = []
    for row in _rows(header, body, source):
        rid = row.get("id")
        if not rid:
            raise BadExport("a row without an ID", SourcePos(source, row.line, 1))
        kind = row.get("type")
        if kind and _key(kind) != "requirement":
            skipped.append(NotTranslated(rid, f"its type is {kind!r}, not a requirement"))
            continue
        component = options.component or row.get("component") or "controller"
        items.extend(_drafts(row, rid, component, source))
    stem = os.path.splitext(os.path.basename(source))[0]
    return assemble(
        kind="hanfor", source=source, name=options.name or stem or "imported",
        description=f"Imported from the Hanfor export {os.path.basename(source)} by "
        "derivative import hanfor.",
        items=items, declared=None, skipped=skipped,
    )
