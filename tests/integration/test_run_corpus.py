"""The corpus through ``derivative run``: the same verdicts behind the sandbox as in-process.

Every case of ``tests/corpus`` (see ``tests/unit/test_corpus.py``) is run with the real
command: the correct implementation must pass (exit 0) and the subtly wrong one must fail
(exit 1) on exactly the obligations its ``# expect-fail:`` line names, including the
check-then-set race of the TokenStore, which only the interleaving explorer running
inside the sandbox can expose.  Every case runs on the process backend; a spread of
cases (dates, enums, lists, reals, raises, the race) also runs on Docker.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from derivative.cli import main

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "spec.req").is_file())
EXPECT = re.compile(r"^# expect-fail: (.+)$", re.MULTILINE)
PAIR_CASES = CASES

DOCKER_CASES = (
    "date_subscription_end",
    "enum_member_mistake",
    "list_max_empty",
    "lookalike_builtin_exception",
    "real_tolerance_percent",
    "token_store_race",
    "wrong_exception_type",
)


def _run(capsys: pytest.CaptureFixture[str], case: str, impl: str,
         backend: str) -> tuple[int, dict[str, object]]:
    folder = CORPUS / case
    code = main(["run", str(folder / "spec.req"), "--candidate", str(folder / impl),
                 "--sandbox", backend, "--examples", "30", "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out)


def _expected(case: str) -> set[str]:
    text = (CORPUS / case / "wrong.py").read_text(encoding="utf-8")
    found = EXPECT.search(text)
    assert found, case
    return {part.strip() for part in found.group(1).split(",")}


def _check_pair(capsys: pytest.CaptureFixture[str], case: str, backend: str) -> None:
    code, doc = _run(capsys, case, "correct.py", backend)
    assert (code, doc["status"]) == (0, "passed"), doc["reason"]
    code, doc = _run(capsys, case, "wrong.py", backend)
    assert (code, doc["status"]) == (1, "failed"), doc["reason"]
    obligations = doc["obligations"]
    assert isinstance(obligations, list)
    failing = {str(o["id"]) for o in obligations if o["status"] in ("failed", "unexercised")}
    expected = _expected(case)
    for e in expected:  # an id, or the prefix of generated ids ("clamp.ensures")
        assert any(f == e or f.startswith(e + ".") for f in failing), (case, failing, e)
    for o in obligations:
        if o["status"] == "failed":
            assert o["counterexample"], o["id"]


@pytest.mark.parametrize("case", PAIR_CASES)
def test_the_corpus_on_the_process_sandbox(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    _check_pair(capsys, case, "process")


@pytest.mark.parametrize("case", DOCKER_CASES)
def test_the_corpus_on_docker(
    case: str, docker_launcher: object, capsys: pytest.CaptureFixture[str]
) -> None:
    _check_pair(capsys, case, "docker")


def test_the_race_is_found_by_exploring_interleavings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not by a random sequence: the counterexample is a schedule of threads."""
    code, doc = _run(capsys, "token_store_race", "wrong.py", "process")
    assert code == 1
    obligations = doc["obligations"]
    assert isinstance(obligations, list)
    (race,) = [o for o in obligations if o["id"] == "single_use"]
    assert race["status"] == "failed"
    counterexample = race["counterexample"]
    assert isinstance(counterexample, dict)
    assert counterexample.get("concurrent") is True
    assert counterexample.get("schedule")
