"""Contract coverage from the solver (issue 13, item 1): MC/DC over the contract.

Every atomic condition of a clause both ways where it decides, each bounded quantifier
decided alone at its first, middle and last position, ties there, and the empty, one- and
two-element cases of lists and strings, solved before any random input. The two false
passes of the HumanEval report are of this shape (written here, not taken from it).
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from derivative import api
from derivative._ast import BoolOp, Name, Quantifier
from derivative._printer import to_source
from derivative.api import TestOptions
from derivative.forge.testing import RunEvidence
from derivative.forge.testing._evidence import ObligationEvidence, TriggerEvidence
from derivative.forge.testing._oracle import Judge, make_evaluator
from derivative.solver import plan_for
from derivative.solver._mcdc import LIMIT, substitute

MONOTONIC = """\
spec mono version 1
function monotonic(l: list[int]) -> bool
    ensures E1: result == ((forall i in 0..len(l) - 2: l[i] <= l[i + 1]) or
                           (forall i in 0..len(l) - 2: l[i] >= l[i + 1]))
"""
FIRST_PAIR_DECIDES = """\
def monotonic(l):
    if len(l) < 2:
        return True
    rising = l[1] >= l[0]
    for a, b in zip(l, l[1:]):
        if (rising and b < a) or (not rising and b > a):
            return False
    return True
"""
MONOTONIC_OK = """\
def monotonic(l):
    pairs = list(zip(l, l[1:]))
    return all(a <= b for a, b in pairs) or all(a >= b for a, b in pairs)
"""
PALINDROME = """\
spec pal version 1
function is_palindrome(text: str) -> bool
    requires: len(text) <= 30
    ensures E1: result == (forall i in 0..len(text) - 1: text[i] == text[len(text) - 1 - i])
"""


def _run(tmp_path: Path, spec: str, module: str, code: str) -> RunEvidence:
    (tmp_path / "spec.req").write_text(spec, encoding="utf-8")
    (tmp_path / f"{module}.py").write_text(code, encoding="utf-8")
    sys.modules.pop(module, None)
    loaded = api.load(str(tmp_path / "spec.req"))
    return api.run_tests(loaded, TestOptions(target=str(tmp_path / f"{module}.py")))


def _plan(tmp_path: Path, spec: str, owner: str):  # type: ignore[no-untyped-def]
    (tmp_path / "plan.req").write_text(spec, encoding="utf-8")
    info = api.load(str(tmp_path / "plan.req")).types
    return plan_for(info, owner, Judge(info, owner, make_evaluator(info)).admits)


def test_a_tie_first_then_a_turn_is_a_target_and_the_first_pair_bug_fails(
        tmp_path: Path) -> None:
    plan = _plan(tmp_path, MONOTONIC, "monotonic")
    ties = [t for t in plan.triggers if t.kind == "tie" and "l[0] == l[0 + 1]" in t.description
            and "l[i] >= l[i + 1]" in t.description]
    assert ties and ties[0].status == "possible" and not ties[0].required
    xs = ties[0].input["l"]  # type: ignore[index]
    assert xs[0] == xs[1] and any(a > b for a, b in itertools.pairwise(xs))
    assert _run(tmp_path, MONOTONIC, "first_pair", FIRST_PAIR_DECIDES).status == "failed"
    ok = _run(tmp_path, MONOTONIC, "mono_ok", MONOTONIC_OK)
    assert ok.status == "passed", ok.summary()


@pytest.mark.parametrize(("code", "why"), [
    ("def is_palindrome(text):\n    return text.lower() == text[::-1].lower()\n", "case"),
    ("def is_palindrome(text):\n    return text == text[::-2]\n", "a palindrome of 2+"),
    ("def is_palindrome(text):\n    return text[:1] == text[-1:]\n", "the middle decides"),
])
def test_wrong_palindromes_fail(tmp_path: Path, code: str, why: str) -> None:
    assert _run(tmp_path, PALINDROME, f"pal_{abs(hash(why))}", code).status == "failed", why


def test_each_quantifier_is_true_over_two_positions_and_sizes_are_targets(
        tmp_path: Path) -> None:
    plan = _plan(tmp_path, PALINDROME, "is_palindrome")
    by = {t.description: t for t in plan.triggers}
    for k in (0, 1, 2):
        assert by[f"len(text) == {k}"].status == "possible"
    wide = [t for t in plan.triggers if t.kind == "condition" and ">= 1" in t.description]
    assert wide and len(wide[0].input["text"]) >= 2  # type: ignore[index]
    # a palindrome that fails at one position only fails at its mirror too: impossible
    assert all(t.status == "vacuous" for t in plan.triggers if t.kind == "position")


def test_coverage_targets_are_reported_but_never_held_against_a_candidate() -> None:
    ev = ObligationEvidence("o", "ensures", "f", inputs=3, triggers=[
        TriggerEvidence("t", "boundary", "x == 1", "possible", 1),
        TriggerEvidence("c", "tie", "l[0] == l[1]", "unknown", 0, required=False),
        TriggerEvidence("d", "condition", "not p", "possible", 0, required=False)])
    assert ev.status == "passed"
    assert [t.to_json()["required"] for t in ev.triggers] == [True, False, False]


def test_a_clause_gets_at_most_LIMIT_coverage_targets(tmp_path: Path) -> None:
    atoms = " or ".join(f"s == \"w{i}\"" for i in range(60))
    spec = f"spec many version 1\nfunction f(s: str) -> bool\n    ensures E1: result == ({atoms})\n"
    plan = _plan(tmp_path, spec, "f")
    assert sum(not t.required for t in plan.triggers) == LIMIT


def test_substitution_leaves_a_rebound_name_alone() -> None:
    inner = Quantifier(quantifier="forall", var="i", lo=Name(id="i"), hi=Name(id="n"),
                       body=Name(id="i"))
    outer = BoolOp(op="and", operands=(Name(id="i"), inner))
    out = substitute(outer, "i", Name(id="k"))
    assert to_source(out) == "k and forall i in k..n: i"
