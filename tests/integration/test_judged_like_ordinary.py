"""Judged and ordinary runs look alike, and a pass must survive a second look.

- A candidate that takes its lock only when it believes it is judged (its file lies under
  ``/sandbox/``, where earlier versions staged it) passed ``derivative run`` while
  ``derivative tests`` caught its race.  The sandbox now shows the candidate at an
  ordinary checkout path drawn per staging, so the judged run sees the racy store too.
- A pass is replayed in a fresh sandbox staged elsewhere, in another order: a function
  whose answers depend on the call history, or a system whose operations raise depending
  on what came before, is ``failed``: nondeterministic, with both observations.

Both run through the real command on the process backend (the judged-only lock on Docker
too); the ones that need ``__file__`` or module state run under ``permissive`` where the
default policy would refuse them statically, which is itself checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derivative.cli import main

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

JUDGED_ONLY_LOCK = '''
"""Takes its lock only when it believes it is being judged."""
import enum
import itertools
import threading


class Outcome(enum.Enum):
    ok = "ok"
    rejected = "rejected"
    expired = "expired"


MIN_LENGTH = 12
JUDGED = __file__.startswith("/sandbox/")


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class TokenStore:
    def __init__(self):
        self._used = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock() if JUDGED else _NoLock()

    def issue(self, user):
        token = f"{user}-{next(self._ids)}"
        self._used[token] = False
        return token

    def reset(self, token, password):
        if len(password) == 0:
            raise ValueError("empty password")
        if len(password) < MIN_LENGTH:
            return Outcome.rejected
        with self._lock:
            if self._used.get(token, True):
                return Outcome.expired
            self._used[token] = True
        return Outcome.ok
'''

HISTORY_SPEC = '''spec grow version 1
function grow(x: int) -> int
    requires: x >= 0 and x <= 1000
    ensures: result > x
'''

HISTORY_CANDIDATE = '''
CALLS = [0]


def grow(x: int) -> int:
    """Right for the contract every time, but not the same answer twice in a row."""
    CALLS[0] += 1
    return x + 1 + CALLS[0] % 2
'''

SYSTEM_SPEC = '''spec counter version 1
system Counter
    operation add(n: int) -> int
        requires: n >= 0 and n <= 100
        ensures: result >= n
'''

SYSTEM_CANDIDATE = '''
MADE = [0]


class Counter:
    """The ninth and later instances of the process refuse to add: a fresh process, as in
    the replay, behaves differently from the judged one."""

    def __init__(self):
        MADE[0] += 1
        self.total = 0
        self.late = MADE[0] > 8

    def add(self, n):
        if self.late:
            raise RuntimeError("late instance")
        self.total += n
        return self.total
'''


def _run(capsys: pytest.CaptureFixture[str], spec: Path, candidate: Path, *extra: str,
         backend: str = "process") -> tuple[int, dict[str, object]]:
    code = main(["run", str(spec), "--candidate", str(candidate), "--sandbox", backend,
                 "--json", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out)


@pytest.mark.parametrize("backend", ["process", pytest.param("docker", marks=pytest.mark.docker)])
def test_a_candidate_that_behaves_only_when_judged_is_caught(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, backend: str
) -> None:
    candidate = tmp_path / "tokens.py"
    candidate.write_text(JUDGED_ONLY_LOCK, encoding="utf-8")
    spec = CORPUS / "token_store_race" / "spec.req"
    code, doc = _run(capsys, spec, candidate, "--policy", "permissive", "--examples", "30",
                     backend=backend)
    assert (code, doc["status"]) == (1, "failed"), doc["reason"]
    failing = {o["id"] for o in doc["obligations"] if o["status"] == "failed"}  # type: ignore[union-attr,index]
    assert "single_use" in failing, failing
    assert doc["enforcing"] is False
    # under the default policy the candidate is refused before it runs: it reads __file__
    code, doc = _run(capsys, spec, candidate, backend=backend)
    assert (code, doc["status"]) == (5, "sandbox_policy_violation"), doc["reason"]


def test_answers_that_depend_on_the_call_history_fail_the_replay(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = tmp_path / "grow.req"
    spec.write_text(HISTORY_SPEC, encoding="utf-8")
    candidate = tmp_path / "grow.py"
    candidate.write_text(HISTORY_CANDIDATE, encoding="utf-8")
    code, doc = _run(capsys, spec, candidate, "--examples", "40")
    assert (code, doc["status"]) == (1, "failed"), doc["reason"]
    assert str(doc["reason"]).startswith("nondeterministic: grow(")
    assert "when judged and returned" in str(doc["reason"])
    replay = doc["replay"]
    assert isinstance(replay, dict) and replay["mismatches"], replay
    first = replay["mismatches"][0]
    assert first["judged"] != first["replayed"]
    # every obligation itself passed: only the second look tells
    assert all(o["status"] == "passed" for o in doc["obligations"])  # type: ignore[union-attr,index]
    receipts = doc["receipts"]
    assert isinstance(receipts, list) and len(receipts) == 2
    assert receipts[0]["layout"] != receipts[1]["layout"]


def test_a_failing_stateful_run_keeps_stdout_a_json_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Late instances of the process raise: the judged run fails the system, and what
    Hypothesis would print about the failing steps stays out of ``--json``'s stdout
    (``_run`` parses it)."""
    spec = tmp_path / "counter.req"
    spec.write_text(SYSTEM_SPEC, encoding="utf-8")
    candidate = tmp_path / "counter.py"
    candidate.write_text(SYSTEM_CANDIDATE, encoding="utf-8")
    code, doc = _run(capsys, spec, candidate, "--examples", "30")
    assert (code, doc["status"]) == (1, "failed"), doc["reason"]


def test_a_deterministic_candidate_passes_its_replay(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = tmp_path / "grow.req"
    spec.write_text(HISTORY_SPEC, encoding="utf-8")
    candidate = tmp_path / "grow.py"
    candidate.write_text("def grow(x: int) -> int:\n    return x + 1\n", encoding="utf-8")
    code, doc = _run(capsys, spec, candidate, "--examples", "40")
    assert (code, doc["status"]) == (0, "passed"), doc["reason"]
    replay = doc["replay"]
    assert isinstance(replay, dict) and replay["calls"] > 0 and replay["mismatches"] == []
