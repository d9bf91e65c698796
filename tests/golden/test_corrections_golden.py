"""Every correction ``--all-cores`` lists restores feasibility, over the golden catalogue.

A correction is a minimal set of obligations whose removal makes its question
feasible (docs/decisions.md, "--all-cores").  For every infeasible case of the
catalogue, whatever flags the case itself runs with, ``check`` runs with
``all_cores`` through the public API; then, for each correction listed, the same set
is checked again without its members (``CheckOptions.without``, which also drops a
declared type's obligation such as ``x.range``) and that question must be decided
feasible: no conflict of the same kind about the same subject, and nothing about it
left undecided.  Removing any one member of the correction must leave the question
infeasible (the correction is minimal).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from derivative import api
from derivative.solver import CheckOptions, CheckResult

CASES_DIR = Path(__file__).resolve().parent / "check"


def _infeasible_cases() -> list[str]:
    names = []
    for p in sorted(CASES_DIR.glob("*/case.json")):
        exp: dict[str, Any] = json.loads(p.read_text("utf-8"))
        if exp["status"] == "infeasible_proven":
            names.append(p.parent.name)
    return names


@contextmanager
def _inside(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _conflicted(result: CheckResult, kind: str, subject: str) -> list[tuple[str, ...]]:
    """The cores of ``kind`` about ``subject``, and the undecided questions about it."""
    cores = [c.ids for c in result.cores if c.kind == kind and c.subject == subject]
    undecided = [
        (u.question,)
        for u in result.unknowns
        if u.question == subject or u.question.startswith(f"{subject} ")
    ]
    return cores + undecided


@pytest.mark.parametrize("name", _infeasible_cases())
def test_every_listed_correction_restores_its_question(name: str) -> None:
    folder = CASES_DIR / name
    exp: dict[str, Any] = json.loads((folder / "case.json").read_text("utf-8"))
    with _inside(folder):
        loaded = api.load(exp["specs"])
    result = api.check(loaded, CheckOptions(all_cores=True))
    assert result.status == "infeasible_proven"
    kinds = {c.subject: c.kind for c in result.cores}
    for subject in kinds:
        # one question per subject: its cores all have one kind
        assert {c.kind for c in result.cores if c.subject == subject} == {kinds[subject]}
    assert result.corrections or result.unknowns, "an infeasible set lists a correction"
    for correction in result.corrections:
        kind = kinds[correction.subject]
        relaxed = api.check(loaded, CheckOptions(without=frozenset(correction.ids)))
        left = _conflicted(relaxed, kind, correction.subject)
        assert not left, f"without {correction.ids}, {correction.subject} still has {left}"
        for keep in correction.ids:
            fewer = frozenset(correction.ids) - {keep}
            partly = api.check(loaded, CheckOptions(without=fewer))
            assert _conflicted(partly, kind, correction.subject), (
                f"{correction.ids} is not minimal: {keep} may stay"
            )
