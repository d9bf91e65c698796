"""Counterexamples are as simple as the generated tests' and the same on every run.

Two ways a report used to show an input nobody would choose: a failure on the solver's
inputs (Hypothesis's explicit examples, which it never shrinks) reported the *last* of
them, where the written test module reports the first, the boundary (``weight_grams=99``
against ``weight_grams=1``); and a race reported the first counted call the stateful runs
happened to make, a solver's jumble of letters or a long generated string, on every
thread.  The engine now tries the solver's inputs in the written module's order, and a
hammer's calls are made as simple as they can be while still counted
(``forge/testing/_witness.py``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from derivative.cli import main

ROOT = Path(__file__).resolve().parents[2]

SHIPPING = """\
spec shipping version 1
function shipping_cost(weight_grams: int, zone: int) -> int
    requires: 1 <= weight_grams <= 30000
    requires: 1 <= zone <= 9
    raises ValueError when zone == 9
    ensures: result >= weight_grams // 100
"""

ALWAYS_WRONG = """\
def shipping_cost(weight_grams, zone):
    if zone == 9:
        raise ValueError("no delivery to zone 9")
    return -1
"""


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_a_failure_on_the_solver_inputs_is_the_one_the_written_module_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    spec, cand = tmp_path / "shipping.req", tmp_path / "shipping.py"
    spec.write_text(SHIPPING, encoding="utf-8")
    cand.write_text(ALWAYS_WRONG, encoding="utf-8")
    code, out = _cli(capsys, "tests", str(spec), "--target", str(cand), "--json")
    assert code == 1
    failed = [o for o in json.loads(out)["obligations"] if o["status"] == "failed"]
    assert [o["counterexample"]["input"] for o in failed] == [{"weight_grams": 1, "zone": 1}]

    module = tmp_path / "test_shipping.py"
    code, _ = _cli(capsys, "tests", str(spec), "--target", str(cand), "-o", str(module))
    assert code == 0
    # the written module's first solver input is the one reported above...
    first = re.search(r"^@example\((\{.*?\})\)", module.read_text("utf-8"), re.MULTILINE)
    assert first is not None and ast.literal_eval(first.group(1)) == \
        {"weight_grams": 1, "zone": 1}
    # ...and it is what pytest reports when it runs the written module
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:derivative", str(module)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stdout[-2000:]
    assert "input:    shipping_cost(weight_grams=1, zone=1)" in done.stdout


RACY = ("tests", str(ROOT / "examples" / "password_policy.req"), "--target",
        str(ROOT / "examples" / "candidates" / "password_policy_racy.py"), "--examples", "20")


@pytest.mark.parametrize("seed", [None, "1", "2"])
def test_a_race_is_reported_on_the_simplest_calls_whatever_the_seed(
    capsys: pytest.CaptureFixture[str], seed: str | None,
) -> None:
    code, out = _cli(capsys, *RACY, *(("--seed", seed) if seed else ()))
    assert code == 1
    calls = out[out.index("  calls:"):out.index("  schedule:")]
    assert 'r1 = s.issue(user="0") -> returned "0-1"' in calls
    # the shortest password the contract does not reject (MIN_LENGTH is 12), all zeros
    assert calls.count('s.reset(token=r1, password="000000000000") -> returned '
                       "Outcome.ok") == 2, calls
