"""A candidate's nondeterminism is a verdict: ``failed``, reason ``nondeterministic``.

Hypothesis replays a failing input before it reports it; a candidate that fails only on
its first call (or on one call of a sequence) passes the replay, and Hypothesis raises
``Flaky``.  That is the candidate's behaviour, never a bug of derivative (exit 70): the run
ends ``failed`` (exit 1) like any failed run, the obligation's counterexample has the
reason ``nondeterministic`` and both observations (``first``: what the first call gave,
``replay``: what the same call gave when made again), and the run's reason names it.

Functions and systems (the stateful tests), behind the process sandbox and in-process
(``derivative tests``).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from derivative._errors import ExitCode
from derivative.cli import main

FUNCTION_SPEC = """\
spec flaky version 1
function f(x: int) -> int
    ensures: result == x + 1
"""

SYSTEM_SPEC = """\
spec box version 1
system Box
    operation put(x: int) -> int
        ensures: result == x + 1
"""

INVARIANT_SPEC = """\
spec box version 1
system Box
    operation put(x: int) -> int
        requires: x >= 0
    invariant no_zero: count(put where result == 0) <= 0
"""

COUNTER = "_calls = 0\n\n\ndef _count():\n    global _calls\n    _calls += 1\n    return _calls\n"

CANDIDATES: dict[str, tuple[str, str, str]] = {
    # name: (spec, source, what the first observation was)
    "function_raises_first": (FUNCTION_SPEC, COUNTER + """

def f(x: int) -> int:
    if _count() == 1:
        raise RuntimeError("first call")
    return x + 1
""", "raised RuntimeError('first call')"),
    "function_differs_first": (FUNCTION_SPEC, COUNTER + """

def f(x: int) -> int:
    if _count() == 1:
        return x + 2
    return x + 1
""", "returned {x_plus_2}"),
    "system_raises_once": (SYSTEM_SPEC, COUNTER + """

class Box:
    def put(self, x: int) -> int:
        if _count() == 6:
            raise RuntimeError("sixth call")
        return x + 1
""", "raised RuntimeError('sixth call')"),
    "system_differs_first": (SYSTEM_SPEC, COUNTER + """

class Box:
    def put(self, x: int) -> int:
        if _count() == 1:
            return x + 2
        return x + 1
""", "returned {x_plus_2}"),
}


def _judge(capsys: pytest.CaptureFixture[str], mode: str, spec: Path,
           candidate: Path) -> tuple[int, dict[str, object]]:
    if mode == "in_process":
        argv = ["tests", str(spec), "--target", str(candidate), "--examples", "20", "--json"]
    else:
        argv = ["run", str(spec), "--candidate", str(candidate), "--sandbox", mode,
                "--examples", "20", "--json"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    return code, json.loads(out)


@pytest.mark.parametrize("mode", ["process", "in_process"])
@pytest.mark.parametrize("name", sorted(CANDIDATES))
def test_a_candidate_that_changes_its_answer_fails_as_nondeterministic(
    name: str, mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec_text, source, first = CANDIDATES[name]
    spec = tmp_path / "spec.req"
    spec.write_text(spec_text, encoding="utf-8")
    candidate = tmp_path / f"{name}.py"
    candidate.write_text(textwrap.dedent(source), encoding="utf-8")
    code, doc = _judge(capsys, mode, spec, candidate)
    assert code == ExitCode.NO and doc["status"] == "failed", doc["reason"]
    assert str(doc["reason"]).startswith("nondeterministic: "), doc["reason"]
    obligations = doc["obligations"]
    assert isinstance(obligations, list)
    (failed,) = [o for o in obligations if o["status"] == "failed"]
    counterexample = failed["counterexample"]
    assert counterexample["reason"] == "nondeterministic", counterexample
    x = counterexample["input"]["x"]
    assert counterexample["first"] == first.format(x_plus_2=x + 2), counterexample
    assert counterexample["replay"] == f"returned {x + 1}", counterexample
    assert "nondeterministic" in counterexample["got"] and first.split("(")[0].format(
        x_plus_2=x + 2) in counterexample["got"]


@pytest.mark.parametrize("mode", ["process", "in_process"])
def test_an_invariant_broken_once_fails_as_nondeterministic(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The sixth call of the run returns 0 (the count invariant breaks), the same calls
    made again do not: the invariant fails with both observations."""
    spec = tmp_path / "spec.req"
    spec.write_text(INVARIANT_SPEC, encoding="utf-8")
    candidate = tmp_path / "invariant_once.py"
    candidate.write_text(COUNTER + textwrap.dedent("""

        class Box:
            def put(self, x: int) -> int:
                return 0 if _count() == 6 else x + 1
        """), encoding="utf-8")
    code, doc = _judge(capsys, mode, spec, candidate)
    assert code == ExitCode.NO and doc["status"] == "failed", doc["reason"]
    assert str(doc["reason"]).startswith("nondeterministic: the first run: the count reached 1")
    obligations = doc["obligations"]
    assert isinstance(obligations, list)
    (failed,) = [o for o in obligations if o["status"] == "failed"]
    counterexample = failed["counterexample"]
    assert failed["id"] == "no_zero" and counterexample["reason"] == "nondeterministic"
    assert counterexample["first"] == "the count reached 1"
    assert counterexample["replay"].startswith("the last call returned "), counterexample
