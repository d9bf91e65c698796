"""The batched warnings pass of large questions reports what the one-by-one pass does.

Questions of ``BATCH_MIN_MEMBERS`` members or more settle their conditions with a
search solver, prove the rest never true at once and draw each core from one shared
pool (``solver/_warnings.py``).  Here a generated feature model, large enough to be
batched, is checked both ways: the same conditions must be reported, and every core
reported by the batched pass must itself be a minimal conflict, checked by asking the
tool again about just that core (with the condition as a requirement) and about the
core with each member left out.
"""

from __future__ import annotations

import random
import re

import pytest

from derivative import api
from derivative.solver import _warnings

SUBJECT = re.compile(r"the condition `(?P<cond>[^`]+)` of (?P<id>\S+) can never be true")


def feature_model(seed: int, features: int = 180) -> tuple[str, dict[str, str]]:
    """A spec text and each requirement's line by id: a tree of boolean features with
    child-implies-parent, mandatory, alternative and or-groups, and two dead features."""
    rnd = random.Random(seed)
    lines: dict[str, str] = {}

    def req(text: str) -> None:
        rid = f"R{len(lines)}"
        lines[rid] = f"requirement {rid}: {text}"

    parents: list[int] = [0]
    nxt = 1
    while nxt < features:
        parent = rnd.choice(parents)
        kind = rnd.choice(("optional", "mandatory", "alt", "or"))
        size = 1 if kind in ("optional", "mandatory") else 3
        kids = list(range(nxt, min(features, nxt + size)))
        nxt += len(kids)
        for k in kids:
            req(f"when f{k}, f{parent}")
        if kind == "mandatory":
            req(f"when f{parent}, f{kids[0]}")
        if kind in ("alt", "or") and len(kids) > 1:
            req(f"when f{parent}, " + " or ".join(f"f{k}" for k in kids))
        if kind == "alt":
            for i, k in enumerate(kids):
                others = [f"f{o}" for o in kids if o != k]
                if others and i % 2 == 0:
                    req(f"when f{k}, not ({' or '.join(others)})")
                elif others:
                    req(f"when f{k}, not {others[0]}")
        parents += kids
    req("f0")
    for dead in rnd.sample(range(features // 2, features), 2):
        req(f"when f{dead}, not f0")  # f0 always holds: f{dead} can never be true
    head = ["spec features version 1", *(f"param f{i}: bool" for i in range(features)), ""]
    return "\n".join([*head, *lines.values()]) + "\n", lines


def _findings(text: str) -> list[tuple[str, str, str, tuple[str, ...]]]:
    result = api.check(api.parse_text(text, "features.req"))
    out = []
    for w in result.warnings:
        if w.kind not in ("vacuous", "latent_conflict"):
            continue
        m = SUBJECT.search(w.message)
        assert m is not None, w.message
        out.append((w.kind, m["id"], m["cond"], tuple(o.id for o in w.members)))
    return out


def _status(text: str) -> str:
    return api.check(api.parse_text(text, "core.req")).status


@pytest.mark.parametrize("seed", [3, 11])
def test_batched_and_one_by_one_report_the_same_conditions(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    text, lines = feature_model(seed)
    assert len(lines) >= _warnings.BATCH_MIN_MEMBERS  # the batched pass runs
    batched = _findings(text)
    monkeypatch.setattr(_warnings, "BATCH_MIN_MEMBERS", 10**9)
    alone = _findings(text)
    assert batched, "the planted dead features must be reported"
    assert sorted((i, c) for _, i, c, _ in batched) == sorted((i, c) for _, i, c, _ in alone)


def test_every_batched_core_is_a_minimal_conflict() -> None:
    text, lines = feature_model(5)
    assert len(lines) >= _warnings.BATCH_MIN_MEMBERS
    head = text.split("\n\n", 1)[0]
    found = _findings(text)
    assert found
    for kind, subject, cond, members in found[:6]:
        # latent conflict: the subject's own clause is in the conflict; vacuous: the
        # finding names the subject first and the conflict is the rest
        core = list(members) if kind == "latent_conflict" else [m for m in members if m != subject]

        def spec(ids: list[str], cond: str = cond) -> str:
            return "\n".join([head, "", f"requirement C: {cond}", *(lines[i] for i in ids)]) + "\n"

        assert _status(spec(core)) == "infeasible_proven", (subject, core)
        for left_out in core:
            smaller = [i for i in core if i != left_out]
            assert _status(spec(smaller)) == "feasible", (subject, core, left_out)


COMPOUND = """spec compound version 1
param x: int in 0..3
param y: int in 0..10
param a: bool
param b: bool
requirement R1: when x > 5, y shall be at least 1
requirement R2: when x + y > 12 and a, b
requirement R3: when x + y > 14, a
requirement R4: when a and not a, y > 2
requirement R5: when y >= 4, not b
requirement R6: when b and y >= 4, a
requirement R7: when a or b, x <= 3
"""


@pytest.mark.parametrize("batch_min", [0, 10**9])
def test_compound_conditions_are_settled_exactly(
    batch_min: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Conditions that are not Boolean constants go through named variables in the
    consequence finding: x > 5 (x <= 3), x + y > 14 (at most 13), a and not a, b and
    y >= 4 (R5), and x + y > 12 and a (then y >= 4, so not b by R5, but R2 demands b)
    can never be true; y >= 4 and a or b can."""
    monkeypatch.setattr(_warnings, "BATCH_MIN_MEMBERS", batch_min)
    found = sorted((i, c) for _, i, c, _ in _findings(COMPOUND))
    assert found == [
        ("R1", "x > 5"),
        ("R2", "x + y > 12 and a"),
        ("R3", "x + y > 14"),
        ("R4", "a and not a"),
        ("R6", "b and y >= 4"),
    ]
