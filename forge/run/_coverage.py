"""Candidate coverage as evidence: which of the candidate's lines and branches the judged
inputs ran (issue 13).

The worker measures, inside the sandbox, the lines and arcs of the candidate's own files
(``forge/inside/_worker.py``, "coverage"); what it sends is untrusted.  Here the host reads
the staged candidate's source itself, as text, with ``ast`` (never executing it), and
decides:

- **what could run**: every statement's first line (docstrings, ``global`` and
  ``nonlocal`` aside: they compile to nothing), and every branch of an ``if``,
  ``elif``, ``while`` (unless its test is a constant), ``for`` and ``async for`` whose
  body starts on a line of its own: taken (the arc into the body's first line) and not
  taken (an arc from the test's lines anywhere else);
- **what a report may name**: lines of a file that was staged, within its length, where
  some node of its syntax tree starts or ends; arcs between such lines or to and from a
  code object's entry (``-line``).  Anything else, a malformed answer, or more than
  ``MAX_ASKS`` answers to one question, is a forgery: the session is tainted
  (``Sandbox.reject``), as for a forged frame, and the figures are dropped.

The figures count only lines and branches the host found possible, so a report can
neither inflate the totals nor name code that is not there.  A candidate that escaped
the restricted language could still claim lines it never ran; the posture and the guard
are what stop it (docs/threat-model.md).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["MAX_LISTED", "CoverageForged", "CoverageLedger", "SourceMap", "map_source"]

MAX_ASKS = 64
"""``coverage`` answers to one question at most (each carries up to 40,000 items)."""

MAX_LISTED = 200
"""Never-run lines (and branches) listed in a document at most; the count is complete."""

_NO_CODE = (ast.Global, ast.Nonlocal)


class CoverageForged(ValueError):
    """A coverage answer the candidate's source cannot have produced."""


@dataclass(frozen=True)
class Branch:
    """One two-way decision: at ``line``, its test spans ``sources``; ``taken`` is the
    first line of its body."""

    line: int
    sources: frozenset[int]
    taken: int


@dataclass(frozen=True)
class SourceMap:
    """What the host knows of one candidate file from its source alone."""

    statements: frozenset[int]
    branches: tuple[Branch, ...]
    valid: frozenset[int]
    length: int


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None) or []
    first: int = min([node.lineno, *(d.lineno for d in decorators)])
    return first


def _docstring(body: list[ast.stmt]) -> ast.stmt | None:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
            and isinstance(first.value.value, str):
        return first
    return None


def _branch(node: ast.stmt) -> Branch | None:
    if isinstance(node, (ast.If, ast.While)):
        head = node.test
        if isinstance(node, ast.While) and isinstance(head, ast.Constant):
            return None  # `while True:` has no way out through its test
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        head = node.iter
    else:
        return None
    taken = _first_line(node.body[0])
    end = head.end_lineno or head.lineno
    sources = frozenset(range(node.lineno, end + 1))
    return None if taken in sources else Branch(node.lineno, sources, taken)


def map_source(text: str) -> SourceMap | None:
    """The file's map, or None when it is not Python the host can parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = _docstring(node.body)
            if doc is not None:
                skip.add(id(doc))
    statements: set[int] = set()
    branches: list[Branch] = []
    valid: set[int] = {1}
    for node in ast.walk(tree):
        lineno = getattr(node, "lineno", None)
        if isinstance(lineno, int):
            valid.add(lineno)
            valid.add(getattr(node, "end_lineno", None) or lineno)
        if isinstance(node, ast.stmt) and id(node) not in skip and not isinstance(node, _NO_CODE):
            statements.add(node.lineno)
            found = _branch(node)
            if found is not None:
                branches.append(found)
    return SourceMap(frozenset(statements), tuple(sorted(branches, key=lambda b: b.line)),
                     frozenset(valid), len(text.splitlines()))


def map_candidate(folder: Path, files: Iterable[str]) -> dict[str, SourceMap]:
    """Maps of the staged candidate's Python files, by path relative to its folder."""
    maps: dict[str, SourceMap] = {}
    for rel in files:
        if not rel.endswith(".py"):
            continue
        try:
            text = (folder / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found = map_source(text)
        if found is not None:
            maps[rel.replace("\\", "/")] = found
    return maps


def _ints(raw: object, what: str, most: int) -> list[Any]:
    if not isinstance(raw, list) or len(raw) > most:
        raise CoverageForged(f"{what} is not a list of at most {most} items")
    return raw


def _line(value: object, source: SourceMap, name: str, *, entry: bool = False) -> int:
    if type(value) is not int:
        raise CoverageForged(f"{name}: a line that is not an integer")
    number: int = value
    line = -number if entry and number < 0 else number
    if not 1 <= line <= source.length or line not in source.valid:
        raise CoverageForged(f"{name}:{number} is not a line of code in that file")
    return number


@dataclass
class CoverageLedger:
    """What the judged inputs ran of the candidate, checked and summed over the run."""

    maps: Mapping[str, SourceMap]
    lines: dict[str, set[int]] = field(default_factory=dict)
    arcs: dict[str, set[tuple[int, int]]] = field(default_factory=dict)
    rejected: str | None = None
    """Why an answer was refused as forged (the figures are then withheld)."""
    lost: bool = False
    """A sandbox ended with measurements not yet asked for: the figures are a lower bound."""

    def absorb(self, raw: object) -> tuple[int, bool]:
        """Check one ``coverage`` answer and add it: (new lines and arcs, more to ask)."""
        if not isinstance(raw, dict) or set(raw) != {"files", "more"} \
                or type(raw["more"]) is not bool or not isinstance(raw["files"], dict):
            raise CoverageForged("a coverage answer of the wrong shape")
        checked: list[tuple[str, list[int], list[tuple[int, int]]]] = []
        for name, entry in raw["files"].items():
            source = self.maps.get(name) if isinstance(name, str) else None
            if source is None:
                raise CoverageForged(f"coverage of {str(name)[:80]!r}, not a staged file")
            if not isinstance(entry, dict) or set(entry) != {"lines", "arcs"}:
                raise CoverageForged(f"{name}: an entry of the wrong shape")
            lines = [_line(v, source, name) for v in _ints(entry["lines"], "lines", 40_000)]
            arcs: list[tuple[int, int]] = []
            for pair in _ints(entry["arcs"], "arcs", 40_000):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise CoverageForged(f"{name}: an arc that is not a pair")
                arcs.append((_line(pair[0], source, name, entry=True),
                             _line(pair[1], source, name, entry=True)))
            checked.append((name, lines, arcs))
        new = 0
        for name, lines, arcs in checked:
            have = self.lines.setdefault(name, set())
            went = self.arcs.setdefault(name, set())
            new += len(set(lines) - have) + len(set(arcs) - went)
            have.update(lines)
            went.update(arcs)
        return new, raw["more"]

    def _branch_state(self, name: str, b: Branch) -> tuple[bool, bool]:
        went = self.arcs.get(name, set())
        taken = any((s, b.taken) in went for s in b.sources)
        other = any(a in b.sources and d not in b.sources and d != b.taken for a, d in went)
        return taken, other

    def figures(self) -> dict[str, Any] | None:
        """The ``CoverageFigures`` of the run document; None when an answer was forged."""
        if self.rejected is not None:
            return None
        total = run = branches = branches_run = 0
        never: list[str] = []
        missed: list[str] = []
        for name in sorted(self.maps):
            source = self.maps[name]
            ran = self.lines.get(name, set()) & source.statements
            total += len(source.statements)
            run += len(ran)
            never.extend(f"{name}:{n}" for n in sorted(source.statements - ran))
            for b in source.branches:
                taken, other = self._branch_state(name, b)
                branches += 2
                branches_run += taken + other
                missed.extend(f"{name}:{b.line} ({way})" for way, hit in
                              (("taken", taken), ("not taken", other)) if not hit)
        return {"lines": total, "lines_run": run, "branches": branches,
                "branches_run": branches_run, "never_run": never[:MAX_LISTED],
                "never_run_count": len(never), "branches_missed": missed[:MAX_LISTED],
                "branches_missed_count": len(missed), "lower_bound": self.lost}


def collect(sandbox: Any, ledger: CoverageLedger) -> int:
    """Ask the sandbox for what it measured since the last ask and add it to ``ledger``:
    the new lines and arcs (0 once an answer was forged: generation then stops growing).
    A forged answer taints the session (``Sandbox.reject``)."""
    if ledger.rejected is not None:
        return 0
    new = 0
    for _ in range(MAX_ASKS):
        result = sandbox.coverage_data()
        if result.status != "returned":
            if result.status in ("crashed", "timeout", "out_of_memory"):
                ledger.lost = True
            return new
        try:
            added, more = ledger.absorb(result.value)
        except CoverageForged as exc:
            ledger.rejected = str(exc)
            sandbox.reject(f"coverage answer: {exc}")
            return 0
        new += added
        if not more:
            return new
    ledger.rejected = f"more than {MAX_ASKS} coverage answers to one question"
    sandbox.reject(f"coverage answer: {ledger.rejected}")
    return 0
