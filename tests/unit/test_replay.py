"""The replay's mechanism (``forge/run/_replay.py``) with a scripted caller.

The integration tests run the real thing; these pin the rules: the sample is a seeded
reservoir (the same calls every time), sandbox failures are never replayed, a function
must give the same value or the same exception classes, a system's history must return
or raise alike at each step (its values may differ), and the order is shuffled.
"""

from __future__ import annotations

from typing import Any

from derivative.forge.run._replay import (
    REPLAY_CALLS,
    REPLAY_HISTORIES,
    Recording,
    replay,
    same,
)
from derivative.forge.testing import Outcome, Raised

BUILTIN_VALUE_ERROR = Raised(("ValueError", "Exception", "BaseException", "object"), "x",
                             ("builtins",) * 4, (True,) * 4, (False,) * 4)
OWN_VALUE_ERROR = Raised(("ValueError", "Exception", "BaseException", "object"), "x",
                         ("cand", "builtins", "builtins", "builtins"),
                         (False, True, True, True), (True, False, False, False))


class Scripted:
    """A caller that answers from a table and records the order it was asked in."""

    def __init__(self, answers: dict[tuple[str, tuple[object, ...]], Outcome],
                 method_answer: Outcome | None = None) -> None:
        self.answers = answers
        self.method_answer = method_answer
        self.asked: list[Any] = []

    def call(self, name: str, args: list[object]) -> Outcome:
        self.asked.append((name, tuple(args)))
        return self.answers[(name, tuple(args))]

    def new_instance(self, system: str) -> object:
        self.asked.append(("new", system))
        return object()

    def method(self, handle: object, op: str, args: list[object]) -> Outcome:
        self.asked.append((op, tuple(args)))
        return self.method_answer or Outcome.returned(0)


def test_the_sample_is_a_seeded_reservoir() -> None:
    def sample(seed: int) -> list[object]:
        rec = Recording(seed=seed)
        for i in range(500):
            rec.call("f", (i,), Outcome.returned(i))
        return [args for _, args, _ in rec.calls]

    assert len(sample(0)) == REPLAY_CALLS
    assert sample(0) == sample(0)
    assert sample(0) != sample(1)
    assert max(a[0] for a in sample(0)) > 100  # not just the first calls


def test_sandbox_failures_are_not_replayed() -> None:
    rec = Recording(seed=0)
    rec.call("f", (1,), Outcome(raised=Raised(("SandboxTimeout",), "killed")))
    rec.call("f", (2,), Outcome.returned(3))
    assert [args for _, args, _ in rec.calls] == [(2,)]


def test_a_different_value_is_a_mismatch_and_the_same_value_is_not() -> None:
    rec = Recording(seed=0)
    rec.call("f", (1,), Outcome.returned(2))
    rec.call("f", (2,), Outcome.returned(3))
    caller = Scripted({("f", (1,)): Outcome.returned(2), ("f", (2,)): Outcome.returned(4)})
    calls, histories, mismatches = replay(rec, caller)
    assert (calls, histories) == (2, 0)
    assert len(mismatches) == 1
    assert mismatches[0].what == "f(2)"
    assert "returned 3" in mismatches[0].judged and "returned 4" in mismatches[0].replayed


def test_exceptions_must_be_the_same_classes_by_identity() -> None:
    assert same(Outcome(raised=BUILTIN_VALUE_ERROR), Outcome(raised=BUILTIN_VALUE_ERROR),
                values=True)
    assert not same(Outcome(raised=BUILTIN_VALUE_ERROR), Outcome(raised=OWN_VALUE_ERROR),
                    values=True)
    assert not same(Outcome(raised=BUILTIN_VALUE_ERROR), Outcome.returned(1), values=True)
    nan = float("nan")
    assert same(Outcome.returned(nan), Outcome.returned(nan), values=True)
    assert not same(Outcome.returned(1), Outcome.returned(True), values=True)


def test_a_history_must_return_or_raise_alike_but_may_answer_other_values() -> None:
    rec = Recording(seed=0)
    handle = object()
    rec.instance(handle, "Store")
    rec.method(handle, "issue", ("ann",), Outcome.returned("token-1"))
    fresh_token = Scripted({}, Outcome.returned("token-9"))
    assert replay(rec, fresh_token)[2] == []
    raising = Scripted({}, Outcome(raised=BUILTIN_VALUE_ERROR))
    mismatches = replay(rec, raising)[2]
    assert len(mismatches) == 1 and "issue" in mismatches[0].what
    assert mismatches[0].replayed.startswith("raised ValueError")


def test_histories_are_sampled_whole_and_capped() -> None:
    rec = Recording(seed=3)
    handles = [object() for _ in range(50)]
    for h in handles:
        rec.instance(h, "Store")
        for i in range(3):
            rec.method(h, "op", (i,), Outcome.returned(i))
    assert len(rec.histories) == REPLAY_HISTORIES
    assert all(len(h.steps) == 3 for h in rec.histories)


def test_the_replay_order_is_not_the_judged_order() -> None:
    rec = Recording(seed=0)
    answers = {}
    for i in range(REPLAY_CALLS):
        rec.call("f", (i,), Outcome.returned(i))
        answers[("f", (i,))] = Outcome.returned(i)
    caller = Scripted(answers)
    assert replay(rec, caller)[2] == []
    assert [a[1][0] for a in caller.asked] != list(range(REPLAY_CALLS))
    assert sorted(a[1][0] for a in caller.asked) == list(range(REPLAY_CALLS))
