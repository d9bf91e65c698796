"""The bounded repair loop, with fake generators and validators: every stop reason, the
best-candidate rule, what the generator is told, and the ``code_artifact.json`` document."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence

import pytest

from derivative._canon import canonical_json
from derivative._errors import DerivativeError, UsageError
from derivative.forge.build import (
    CODE_ARTIFACT_FORMAT,
    Attempt,
    GenerationRequest,
    GeneratorFailed,
    RepairResult,
    Validation,
    failure_signature,
    make_attempt,
    repair_loop,
)

IDS = ("f.ensures.a", "f.ensures.b", "f.raises.ValueError", "f.example.c")
BASE = GenerationRequest(contract={"format": "derivative.contract/v1"}, module="m")


def _code(n: int) -> bytes:
    """A materially different module per ``n``."""
    return f'"""Attempt {n}."""\n\ndef f(x):\n    return x + {n}\n'.encode()


def _attempt(n: int, *, request: GenerationRequest | None = BASE) -> Attempt:
    return make_attempt({"m.py": _code(n)}, origin="generator", command=["gen"],
                        duration=0.25, request=request)  # fmt: skip


def _failing(*failing: str, status: str = "validation_failed", shape: int = 1) -> Validation:
    passing = frozenset(IDS) - set(failing)
    examples = [{"obligation": f, "input": {"x": "y" * shape}} for f in failing]
    return Validation(status=status, passing=passing, failing=frozenset(failing),
                      counterexamples=examples, message=f"fails {', '.join(failing)}")  # fmt: skip


VERIFIED = Validation(status="verified", passing=frozenset(IDS))


class Script:
    """A fake generator (attempts by code number) and a fake validator (by code number)."""

    def __init__(self, codes: Sequence[int | Exception], verdicts: dict[int, Validation]) -> None:
        self.codes: Iterator[int | Exception] = iter(codes)
        self.verdicts = verdicts
        self.requests: list[GenerationRequest] = []
        self.validated: list[int] = []

    def _next(self) -> Attempt:
        code = next(self.codes)
        if isinstance(code, Exception):
            raise code
        return _attempt(code)

    def first(self) -> Attempt:
        return self._next()

    def regenerate(self, request: GenerationRequest) -> Attempt:
        self.requests.append(request)
        return self._next()

    def validate(self, attempt: Attempt) -> Validation:
        code = int(attempt.files["m.py"].decode().split("+ ")[1])
        self.validated.append(code)
        return self.verdicts[code]

    def run(self, max_repairs: int = 3) -> RepairResult:
        return repair_loop(first=self.first, regenerate=self.regenerate,
                           validate=self.validate, max_repairs=max_repairs)  # fmt: skip


# --------------------------------------------------------------------------- stop reasons


def test_verified_first_time_asks_for_no_repair() -> None:
    s = Script([1], {1: VERIFIED})
    result = s.run()
    assert result.stop_reason == "verified" and result.status == "verified"
    assert s.requests == [] and result.best == 0 and len(result.attempts) == 1


def test_a_wrong_first_attempt_is_repaired_and_the_generator_is_told_why() -> None:
    s = Script([1, 2], {1: _failing("f.ensures.a"), 2: VERIFIED})
    result = s.run()
    assert result.stop_reason == "verified"
    assert [a.number for a, _ in result.attempts] == [1, 2]
    second = result.attempts[1][0]
    assert second.parent == 1
    (request,) = s.requests
    assert request.attempt == 2 and request.module == "m" and request.contract == BASE.contract
    doc = request.to_json()
    assert doc["format"] == "derivative.generation-request/v1"
    assert doc["previous"]["files"] == {"m.py": _code(1).decode()}
    assert doc["previous"]["failing"] == ["f.ensures.a"]
    shown = [{"obligation": "f.ensures.a", "input": {"x": "y"}}]
    assert doc["previous"]["counterexamples"] == shown
    assert doc["previous"]["message"] == "fails f.ensures.a"
    canonical_json(doc)  # the document is canonical JSON (no floats)


def test_budget_is_max_repairs_after_the_first_attempt() -> None:
    verdicts = {
        1: _failing("f.ensures.a", "f.ensures.b", shape=1),
        2: _failing("f.ensures.a", shape=2),
        3: _failing("f.ensures.a", shape=3),
    }
    result = Script([1, 2, 3], verdicts).run(max_repairs=2)
    assert result.stop_reason == "budget"
    assert len(result.attempts) == 3
    assert result.best == 1  # fewest failing; attempt 3 is no better, so 2 stays
    assert result.status == "validation_failed"


def test_no_repairs_at_all_with_a_zero_budget() -> None:
    s = Script([1], {1: _failing("f.ensures.a")})
    result = s.run(max_repairs=0)
    assert result.stop_reason == "budget" and s.requests == []
    with pytest.raises(UsageError):
        s.run(max_repairs=-1)


def test_an_identical_candidate_is_not_validated_again_and_stalls() -> None:
    s = Script([1, 2, 1], {1: _failing("f.ensures.a", "f.ensures.b"),
                           2: _failing("f.ensures.b", "f.raises.ValueError")})  # fmt: skip
    result = s.run()
    assert result.stop_reason == "stalled"
    assert s.validated == [1, 2]
    assert result.stalled is not None and result.stalled.number == 3
    artifact = result.code_artifact()
    assert artifact["stalled"]["identical_to"] == 1
    assert artifact["stalled"]["validation"] is None


def test_a_cosmetic_rewrite_is_not_materially_different() -> None:
    cosmetic = b'def f(x):\n    # a comment\n    """A docstring."""\n    return (x + 1)\n'
    attempts = iter([_attempt(1), make_attempt({"m.py": cosmetic}, origin="generator")])
    validated: list[Attempt] = []

    def validate(a: Attempt) -> Validation:
        validated.append(a)
        return _failing("f.ensures.a")

    result = repair_loop(first=lambda: next(attempts), regenerate=lambda r: next(attempts),
                         validate=validate, request=BASE)  # fmt: skip
    assert result.stop_reason == "stalled" and len(validated) == 1


def test_a_repeated_failure_signature_stops_early() -> None:
    # Same failing obligation, same counterexample shape, different values: a loop.
    v1 = _failing("f.ensures.a", "f.ensures.b")
    v2 = _failing("f.ensures.a")
    other_value = [{"obligation": "f.ensures.a", "input": {"x": "z"}}]
    v3 = Validation(status="validation_failed", passing=v2.passing, failing=v2.failing,
                    counterexamples=other_value)  # fmt: skip
    s = Script([1, 2, 3, 4], {1: v1, 2: v2, 3: v3})
    result = s.run(max_repairs=5)
    assert result.stop_reason == "repeated_failure"
    assert s.validated == [1, 2, 3]
    assert "attempt 3" in result.message and "attempt 2" in result.message


def test_the_signature_is_the_ids_and_the_shape_not_the_values() -> None:
    a = failure_signature(["b", "a"], [{"obligation": "a", "input": {"s": "xyz", "n": 4}}])
    b = failure_signature(["a", "b"], [{"obligation": "a", "input": {"n": -9, "s": "abc"}}])
    c = failure_signature(["a", "b"], [{"obligation": "a", "input": {"n": -9, "s": "abcd"}}])
    d = failure_signature(["a"], [{"obligation": "a", "input": {"n": -9, "s": "abc"}}])
    e = failure_signature(["a", "b"], [{"obligation": "a", "input": {"n": "9", "s": "abc"}}])
    assert a == b and len({a, c, d, e}) == 4


@pytest.mark.parametrize("where", ["first", "repair"])
def test_a_failing_generator_stops_the_loop(where: str) -> None:
    boom = GeneratorFailed("generator gen exited with status 3: out of tokens")
    codes: list[int | Exception] = [boom] if where == "first" else [1, boom]
    result = Script(codes, {1: _failing("f.ensures.a")}).run()
    assert result.stop_reason == "generator_failed"
    assert "out of tokens" in result.message
    if where == "first":
        assert result.attempts == [] and result.best is None and result.status is None
        assert result.code_artifact()["attempts"] == []
    else:
        assert result.best == 0 and result.status == "validation_failed"


def test_other_errors_are_not_swallowed() -> None:
    with pytest.raises(DerivativeError, match="bad flag"):
        Script([UsageError("bad flag")], {}).run()


@pytest.mark.parametrize("status", ["sandbox_unavailable", "infeasible_proven"])
def test_no_repair_after_what_no_candidate_can_fix(status: str) -> None:
    s = Script([1, 2], {1: Validation(status=status), 2: VERIFIED})
    result = s.run()
    assert result.stop_reason == "not_repairable" and s.requests == []


def test_a_policy_violation_is_repaired_and_the_refusal_is_passed_on() -> None:
    refusal = Validation(status="sandbox_policy_violation",
                         message="posture: import of 'os' is not allowed (line 1)")  # fmt: skip
    s = Script([1, 2], {1: refusal, 2: VERIFIED})
    result = s.run()
    assert result.stop_reason == "verified" and result.best == 1
    assert s.requests[0].previous is not None
    assert "import of 'os'" in s.requests[0].previous.message


def test_an_attempt_from_no_generator_cannot_be_repaired() -> None:
    only = _attempt(1, request=None)
    result = repair_loop(first=lambda: only, regenerate=lambda r: only,
                         validate=lambda a: _failing("f.ensures.a"))  # fmt: skip
    assert result.stop_reason == "not_repairable" and "no generator" in result.message


def test_unknown_statuses_are_refused() -> None:
    with pytest.raises(UsageError, match="unknown validation status"):
        Validation(status="passed")


# --------------------------------------------------------------------------- the best candidate


def test_a_regression_is_never_kept_and_repairs_start_from_the_best() -> None:
    verdicts = {
        1: _failing("f.ensures.a", "f.ensures.b"),  # passes raises and example
        2: _failing("f.raises.ValueError"),  # fewer failing, but regressed on raises
        3: _failing("f.ensures.b"),  # better and no regression
        4: _failing("f.ensures.b", "f.example.c", shape=9),  # worse
    }
    s = Script([1, 2, 3, 4, 5], verdicts | {5: VERIFIED})
    result = s.run(max_repairs=3)
    assert result.stop_reason == "budget"
    assert result.best == 2 and result.attempts[2][0].number == 3
    parents = [a.parent for a, _ in result.attempts]
    assert parents == [None, 1, 1, 3]  # attempt 2 regressed, so 3 repairs 1 again
    told = s.requests[1].previous
    assert told is not None and told.files == {"m.py": _code(1).decode()}
    assert "attempt 2 was not kept" in told.message and "f.raises.ValueError" in told.message


def test_a_policy_violation_never_beats_a_validated_failure() -> None:
    refusal = Validation(status="sandbox_policy_violation", message="no")
    s = Script([1, 2], {1: _failing("f.ensures.a", "f.ensures.b"), 2: refusal})
    result = s.run(max_repairs=1)
    assert result.best == 0 and result.status == "validation_failed"


# --------------------------------------------------------------------------- code_artifact.json


def test_the_code_artifact_records_every_attempt_with_its_diff() -> None:
    s = Script([1, 2], {1: _failing("f.ensures.a"), 2: VERIFIED})
    artifact = s.run().code_artifact()
    canonical_json(artifact)  # canonical JSON: no floats anywhere
    assert artifact["format"] == CODE_ARTIFACT_FORMAT
    assert artifact["stop_reason"] == "verified" and artifact["best"] == 2
    first, second = artifact["attempts"]
    assert first["number"] == 1 and first["parent"] is None and first["diff"] is None
    assert first["origin"] == "generator" and first["command"] == ["gen"]
    assert first["duration_ms"] == 250
    assert first["files"] == [{"path": "m.py", "sha256": hashlib.sha256(_code(1)).hexdigest(),
                               "bytes": len(_code(1))}]  # fmt: skip
    assert first["validation"]["status"] == "validation_failed"
    assert first["validation"]["failing"] == ["f.ensures.a"]
    assert second["parent"] == 1
    assert second["diff"] == {"added": [], "removed": [], "changed": ["m.py:f"],
                              "files_added": [], "files_removed": []}  # fmt: skip
    assert second["validation"]["status"] == "verified"
    assert first["ast_hash"] != second["ast_hash"]


def test_fakes_are_callables_of_the_documented_shape() -> None:
    regenerate: Callable[[GenerationRequest], Attempt] = lambda r: _attempt(r.attempt)  # noqa: E731
    result = repair_loop(first=lambda: _attempt(1), regenerate=regenerate,
                         validate=lambda a: VERIFIED if a.ast_hash == _attempt(3).ast_hash
                         else _failing("f.ensures.a", shape=a.number))  # fmt: skip
    assert result.stop_reason == "verified" and len(result.attempts) == 3
