"""The SARIF 2.1.0 log of a ``CheckResult`` (``derivative check --format sarif``).

Code hosts annotate a file only where a result has a location, so every result gets one:
its located members (a core's obligations, a warning's), else the declarations it is
about (an ``unused_param``'s param), else the spec file as a whole, else a logical
location naming what it is about.  Each location's URI is relative to the base id
``SRCROOT``, which the run resolves in ``originalUriBaseIds``: the working directory when
it holds every spec file (a check run from the repository root, as in CI), otherwise the
deepest folder that holds them all, so that no URI climbs out of its base with ``..``.
Consumers that know where the repository is checked out can rebase ``SRCROOT`` without
rewriting a single result.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

from derivative._ast import Located, Obligation

from ._report import clause_text
from ._result import CheckResult

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
"""The URI of the OASIS SARIF 2.1.0 (errata 01) schema, the one the logs are tested
against."""
BASE_ID = "SRCROOT"

_RULES: dict[str, str] = {
    "inconsistent_requirements": "The global requirements have no common solution.",
    "unsatisfiable_precondition": "A function's requires clauses can never hold together.",
    "contradicting_example": "An example contradicts the clauses of its function.",
    "unrealizable": "A valid input exists at which no result satisfies the ensures clauses.",
    "vacuous": "A condition can never be true.",
    "latent_conflict": "A condition is impossible only because consequences collide.",
    "ambiguous_raises": "Several raises clauses with different exceptions hold at one input.",
    "redundant": "An obligation is implied by the others.",
    "unused_param": "A param is declared but never constrained.",
    "unknown": "The solver could not decide a question.",
}
RULE_IDS: tuple[str, ...] = tuple(_RULES)
"""Every ``ruleId`` a log can carry (a test produces each one)."""


def base_folder(files: Iterable[str], cwd: str | None = None) -> str:
    """The folder ``SRCROOT`` stands for: ``cwd`` (default: the working directory) when
    it holds every file, otherwise the deepest folder holding them all."""
    here = os.path.abspath(cwd or os.getcwd())
    paths = [os.path.abspath(f) for f in files if f]
    if all(_inside(p, here) for p in paths):
        return here
    return os.path.commonpath([os.path.dirname(p) for p in paths])


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # another drive
        return False


class _Locator:
    """Builds locations relative to ``SRCROOT`` (``base``)."""

    def __init__(self, base: str) -> None:
        self.base = base

    def uri(self, file: str) -> str:
        """``file`` relative to the base, as a percent-encoded URI reference."""
        rel = os.path.relpath(os.path.abspath(file), self.base)
        return quote(PurePath(rel).as_posix(), safe="/")

    def at(self, node: Located, message: str) -> dict[str, Any]:
        return {
            "physicalLocation": {
                "artifactLocation": {"uri": self.uri(node.file), "uriBaseId": BASE_ID},
                "region": {"startLine": max(node.line, 1), "startColumn": max(node.column, 1)},
            },
            "message": {"text": message},
        }

    def whole(self, file: str) -> dict[str, Any]:
        """The spec file as a whole (no member of the result has a place of its own)."""
        return {
            "physicalLocation": {
                "artifactLocation": {"uri": self.uri(file), "uriBaseId": BASE_ID}
            }
        }


def _member_text(m: Located) -> str:
    if isinstance(m, Obligation):
        return f"{m.id}: {clause_text(m)}"
    name = getattr(m, "name", "")
    return f"{getattr(m, 'kind', 'declaration')} {name}".strip()


def _sarif_result(
    loc: _Locator, rule: str, level: str, message: str, members: Sequence[Located],
    fallback: tuple[str, str],
) -> dict[str, Any]:
    """One result; ``fallback`` is (a spec file or "", a logical name) for a result none
    of whose members has a place."""
    located = [m for m in members if m.file]
    out: dict[str, Any] = {"ruleId": rule, "level": level, "message": {"text": message}}
    if located:
        out["locations"] = [loc.at(m, _member_text(m)) for m in located]
    elif fallback[0]:
        out["locations"] = [loc.whole(fallback[0])]
    else:
        out["locations"] = [{"logicalLocations": [{"name": fallback[1]}]}]
    if len(located) > 1:
        out["relatedLocations"] = [
            {"id": i, **loc.at(m, _member_text(m))} for i, m in enumerate(located)
        ]
    return out


def render_sarif(
    result: CheckResult, strict: bool = False, *, cwd: str | None = None
) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one result per core, warning and unknown question, each with a
    location whose URI is relative to ``SRCROOT`` (see the module docstring; ``cwd``
    stands in for the working directory)."""
    by_id = {o.id: o for o in result.obligations}
    files = sorted({o.file for o in result.obligations if o.file}
                   | {d.file for w in result.warnings for d in w.declarations if d.file})
    base = base_folder(files, cwd) if files else os.path.abspath(cwd or os.getcwd())
    loc = _Locator(base)
    spec = files[0] if len(files) == 1 else ""
    results: list[dict[str, Any]] = []
    for core in result.cores:
        results.append(_sarif_result(loc, core.kind, "error", core.explanation, core.members,
                                     (spec, core.subject)))
    for w in result.warnings:
        level = (
            "error" if strict and w.kind in ("latent_conflict", "ambiguous_raises") else "warning"
        )
        members: list[Located] = [*w.members, *w.declarations]
        results.append(_sarif_result(loc, w.kind, level, w.message, members,
                                     (spec, ", ".join(w.ids) or "requirements")))
    for u in result.unknowns:
        located: list[Located] = [by_id[i] for i in u.ids if i in by_id]
        results.append(_sarif_result(loc, "unknown", "note", f"{u.question}: {u.reason}",
                                     located, (spec, u.question)))
    from derivative._version import __version__

    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "derivative",
                        "version": __version__,
                        "rules": [
                            {"id": k, "shortDescription": {"text": v}} for k, v in _RULES.items()
                        ],
                    }
                },
                "originalUriBaseIds": {BASE_ID: {"uri": Path(base).as_uri().rstrip("/") + "/"}},
                "results": results,
                "properties": {"status": result.status, "reason": result.reason},
            }
        ],
    }
