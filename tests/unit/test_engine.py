"""The engine: obligations run through a Caller, evidence per obligation, statuses.

Covered here: the in-process and sandbox callers, the solver plan (boundaries, raises
triggers, antecedents, examples), shrunk counterexamples in the obligation's words,
the four statuses of ``derivative.run/v1`` (``unexercised`` distinct from ``failed``,
``vacuous`` when the solver proves there is nothing to exercise), stateful tests of
count invariants (upper bounds after every call, lower bounds at the end), and the
concurrent exploration of a check-then-set race.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
import textwrap
import types
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from derivative._values import EnumValue
from derivative.api import parse_text
from derivative.forge.run import SandboxCaller
from derivative.forge.testing import (
    Caller,
    ConcurrentCaller,
    Engine,
    EngineError,
    EngineOptions,
    InProcessCaller,
    _engine,
    count_checks,
    load_target,
)
from derivative.forge.testing._evidence import ObligationEvidence, TriggerEvidence
from derivative.solver._boundary import clear_cache

OPTIONS = EngineOptions(examples=30, sequences=10, steps=10, interleavings=300)


_FOLDER = Path(tempfile.mkdtemp(prefix="derivative-engine-"))
_COUNTER = itertools.count()


def _module(source: str) -> types.ModuleType:
    """The candidate as a real file (the explorer schedules only the candidate's files)."""
    path = _FOLDER / f"candidate_{next(_COUNTER)}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return load_target(str(path))


def _run(spec: str, source: str, options: EngineOptions = OPTIONS) -> Any:
    clear_cache()
    info = parse_text(textwrap.dedent(spec)).types
    mod = _module(source)
    return Engine(info, InProcessCaller.for_contract(mod, info), options).run()


def _status(evidence: Any) -> dict[str, str]:
    return {o.id: o.status for o in evidence.obligations}


# --------------------------------------------------------------------------- callers


def test_the_in_process_caller_converts_values_both_ways() -> None:
    mod = _module("""
        import enum
        class Tier(enum.Enum):
            basic = 1
            gold = 2
        def f(t, xs, r):
            return (t, xs, r)
    """)
    caller = InProcessCaller(mod)
    out = caller.call("f", [EnumValue("Tier", "gold"), (1, 2), Fraction(1, 4)])
    assert out.raised is None
    value: Any = out.value
    t, xs, r = value
    assert t is mod.Tier.gold and xs == [1, 2] and r == 0.25 and isinstance(r, float)
    assert caller.to_candidate(EnumValue("Color", "red")) == "red"  # no such Enum: the name
    missing = caller.call("nope", [])
    # a name the candidate lacks is said as such, and never passes for a raise of its own
    assert missing.undefined == "the candidate defines no nope"
    assert missing.raised is not None and not missing.raised.is_a("AttributeError")


def test_the_caller_protocol_is_what_the_engine_needs() -> None:
    assert isinstance(InProcessCaller(types.ModuleType("m")), Caller)
    assert isinstance(InProcessCaller(types.ModuleType("m")), ConcurrentCaller)
    assert isinstance(SandboxCaller(object()), Caller)


@dataclass
class _Exc:
    classes: tuple[str, ...]
    message: str
    modules: tuple[str, ...] = ("builtins", "builtins")
    builtin: tuple[bool, ...] = (True, True)


@dataclass
class _Result:
    status: str
    value: object = None
    exc: _Exc | None = None
    detail: str = ""


@dataclass
class _Staged:
    files: tuple[str, ...]


class _FakeSandbox:
    def __init__(self, result: _Result, files: tuple[str, ...] = ()) -> None:
        self.result = result
        self.staged = _Staged(files)

    def call(self, function: str, args: list[object]) -> _Result:
        return self.result


@pytest.mark.parametrize(
    ("result", "returned", "name"),
    [
        (_Result("returned", 3), 3, None),
        (_Result("raised", exc=_Exc(("ValueError", "Exception"), "bad")), None, "ValueError"),
        (_Result("timeout", detail="10 s"), None, "SandboxTimeout"),
        (_Result("protocol_error", detail="frame"), None, "SandboxProtocolError"),
    ],
)
def test_the_sandbox_caller_never_turns_a_failure_into_a_value(
    result: _Result, returned: object, name: str | None
) -> None:
    out = SandboxCaller(_FakeSandbox(result)).call("f", [1])
    if name is None:
        assert out.raised is None and out.value == returned
    else:
        assert out.raised is not None and out.raised.name == name


def test_the_sandbox_caller_knows_the_candidates_own_modules() -> None:
    """A class is the candidate's own when its module is one the candidate brought."""
    exc = _Exc(("Short", "Short", "Exception"), "no", ("bank.errors", "decimal", "builtins"),
               (False, False, True))
    sandbox = _FakeSandbox(_Result("raised", exc=exc),
                           ("bank/__init__.py", "bank/errors.py", "bank/data.json"))
    caller = SandboxCaller(sandbox)
    assert caller.own_modules == {"bank", "bank.errors"}
    raised = caller.call("f", [1]).raised
    assert raised is not None and raised.own == (True, False, False)
    assert raised.is_a("Short") and raised.is_a("Exception")
    assert not SandboxCaller(_FakeSandbox(_Result("raised", exc=exc))).call(
        "f", [1]).raised.is_a("Short")  # type: ignore[union-attr]


def test_load_target_from_a_file_and_by_module_name(tmp_path: Path) -> None:
    (tmp_path / "impl_mod_x.py").write_text("def f(x):\n    return x\n", encoding="utf-8")
    by_path = load_target(str(tmp_path / "impl_mod_x.py"))
    assert by_path.f(2) == 2
    sys.path.insert(0, str(tmp_path))
    try:
        assert load_target("impl_mod_x").f(3) == 3
    finally:
        sys.path.remove(str(tmp_path))
    with pytest.raises(EngineError):
        load_target(str(tmp_path / "missing_module_y"))


# --------------------------------------------------------------------------- functions

CLAMP = """\
spec clamp version 1
function clamp(x: int, hi: int in 0..1000) -> int
    ensures C1: result <= hi
    ensures C2: x <= hi implies result == x
    raises ValueError when x < -100
    example X1: clamp(5, 3) == 3
"""

GOOD_CLAMP = """
def clamp(x, hi):
    if x < -100:
        raise ValueError(x)
    return min(x, hi)
"""


def test_a_correct_implementation_passes_with_every_trigger_hit() -> None:
    ev = _run(CLAMP, GOOD_CLAMP)
    assert ev.status == "passed", ev.summary()
    c2 = ev.by_id()["C2"]
    assert c2.inputs > 10
    triggers = {t.description: t for t in c2.triggers}
    assert triggers["x - hi == 0"].hits >= 1  # the boundary, hit by a solver input
    assert triggers["x - hi == 1"].hits >= 1  # one step outside
    assert triggers["x <= hi"].hits >= 1  # the antecedent
    raises = ev.by_id()["clamp.raises.ValueError"]
    assert any(t.kind == "raises" and t.hits for t in raises.triggers)


def test_a_boundary_bug_is_found_and_shrunk_to_the_boundary() -> None:
    ev = _run(CLAMP, """
        def clamp(x, hi):
            if x < -100:
                raise ValueError(x)
            return x if x < hi else hi - 1 if x == hi else hi
    """)
    c2 = ev.by_id()["C2"]
    assert c2.status == "failed"
    ce = c2.counterexample
    assert ce is not None and ce["input"]["x"] == ce["input"]["hi"]
    assert ce["got"] == f"returned {ce['input']['hi'] - 1}"
    assert "C2" in ce["message"] and "x <= hi implies result == x" in ce["message"]
    assert ev.by_id()["C1"].status == "passed"  # masked and re-run: its own evidence


def test_a_shrunk_counterexample_is_minimal() -> None:
    ev = _run("""\
        spec s version 1
        function f(x: int) -> int
            ensures: result == x
    """, """
        def f(x):
            return x + 1 if x >= 1000 else x
    """)
    (o,) = ev.obligations
    assert o.status == "failed" and o.counterexample is not None
    assert o.counterexample["input"] == {"x": 1000}


def test_missing_and_wrong_raises() -> None:
    missing = _run(CLAMP, "def clamp(x, hi):\n    return min(x, hi)\n")
    assert _status(missing)["clamp.raises.ValueError"] == "failed"
    wrong = _run(CLAMP, "def clamp(x, hi):\n    if x < -100:\n        raise TypeError\n"
                        "    return min(x, hi)\n")
    assert _status(wrong)["clamp.raises.ValueError"] == "failed"
    assert _status(wrong)["C2"] == "passed"


def test_a_failing_example_is_reported() -> None:
    ev = _run(CLAMP, GOOD_CLAMP.replace("min(x, hi)", "x if x <= hi else hi + 0 * x + (x == 5)"))
    x1 = ev.by_id()["X1"]
    assert x1.status == "failed" and x1.counterexample is not None
    assert x1.counterexample["call"] == "clamp(x=5, hi=3)"


def test_vacuous_conditions_and_impossible_preconditions() -> None:
    ev = _run("""\
        spec s version 1
        function f(x: int in 0..10) -> int
            raises ValueError when x > 20
            ensures: x > 50 implies result == 0
            ensures E: result == x
        function g(x: int in 0..10) -> int
            requires: x > 10
            ensures G: result == x
    """, "def f(x):\n    return x\ndef g(x):\n    return x\n")
    status = _status(ev)
    assert status["f.raises.ValueError"] == "vacuous"
    assert status["E"] == "passed"
    assert [s for k, s in status.items() if k.startswith("f.ensures")] == ["vacuous"]
    assert status["G"] == "vacuous"
    assert ev.status == "passed"


def test_a_possible_trigger_never_hit_is_unexercised_not_passed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from derivative.solver import _boundary

    real = _boundary.plan_for

    def without_solver_inputs(*args: Any, **kwargs: Any) -> Any:
        plan = real(*args, **kwargs)
        plan.inputs = []
        plan.origins = []
        return plan

    monkeypatch.setattr(_engine, "plan_for", without_solver_inputs)
    ev = _run("""\
        spec s version 1
        function f(x: int) -> int
            ensures R: x == 123456789 implies result == 1
    """, "def f(x):\n    return 1\n")
    r = ev.by_id()["R"]
    assert r.status == "unexercised" and r.counterexample is None
    assert ev.status == "failed"
    assert "x == 123456789" in r.explain()


def test_statuses_follow_the_counts() -> None:
    ev = ObligationEvidence("o", "ensures", "f", inputs=3,
                            triggers=[TriggerEvidence("t", "boundary", "x == 1", "possible", 1),
                                      TriggerEvidence("u", "boundary", "x == 2", "vacuous", 0)])
    statuses = [ev.status]
    ev.triggers.append(TriggerEvidence("v", "boundary", "x == 3", "unknown", 0))
    statuses.append(ev.status)  # an undecided target: the tool's limit
    ev.triggers.append(TriggerEvidence("w", "boundary", "x == 4", "possible", 0))
    statuses.append(ev.status)  # a possible target missed: the evidence is short
    ev.counterexample = {"message": "m"}
    statuses.append(ev.status)
    assert statuses == ["passed", "undecided", "unexercised", "failed"]
    assert ObligationEvidence("p", "ensures", "f").status == "unexercised"


def test_the_run_document_has_the_published_fields() -> None:
    ev = _run(CLAMP, GOOD_CLAMP)
    doc = ev.to_json()
    assert doc["format"] == "derivative.run/v1" and doc["status"] == "passed"
    for o in doc["obligations"]:
        assert {"id", "kind", "status", "inputs", "trigger_hits", "counterexample"} <= set(o)
        assert o["status"] in ("passed", "failed", "unexercised", "vacuous")


def test_narrow_preconditions_are_exercised() -> None:
    ev = _run("""\
        spec s version 1
        function f(x: int, y: int) -> int
            requires: x == y + 1 and y % 7 == 3
            ensures E: result == x + y
    """, "def f(x, y):\n    return x + y\n")
    assert ev.status == "passed"
    assert ev.by_id()["E"].inputs >= 25


# --------------------------------------------------------------------------- systems

COUNTER = """\
spec counters version 1
const LIMIT: int = 2
system Gate
    operation enter(who: str) -> bool
        requires: len(who) >= 1
    invariant at_most "at most two get in": count(enter where result == true) <= LIMIT
    invariant nonneg: count(enter) >= 0
"""


def test_count_invariants_are_parsed_in_both_orientations() -> None:
    info = parse_text("spec s version 1\nsystem S\n    operation op(k: int) -> bool\n"
                      "    invariant a: 1 >= count(op where result == true, per k)\n"
                      "    invariant b: count(op) > 2\n").types
    from derivative.forge.testing._oracle import make_evaluator

    ev = make_evaluator(info)
    a, b = (o for o in info.contract.obligations if o.kind == "invariant")
    (ca,) = count_checks(a, ev) or []
    (cb,) = count_checks(b, ev) or []
    assert ca.upper and ca.limit == 1 and ca.count.per == "k"
    assert not cb.upper and cb.limit == 3


def test_a_locked_gate_passes_and_a_leaky_one_fails_sequentially() -> None:
    good = _run(COUNTER, """
        import threading
        class Gate:
            def __init__(self):
                self.n = 0
                self.lock = threading.Lock()
            def enter(self, who):
                with self.lock:
                    if self.n >= 2:
                        return False
                    self.n += 1
                    return True
    """)
    assert good.status == "passed", good.summary()
    most = good.by_id()["at_most"]
    assert most.triggers and most.triggers[0].hits > 0  # the bound itself was reached
    leaky = _run(COUNTER, """
        class Gate:
            def __init__(self):
                self.n = 0
            def enter(self, who):
                self.n += 1
                return self.n <= 3
    """)
    most = leaky.by_id()["at_most"]
    assert most.status == "failed" and most.counterexample is not None
    assert "the count reached 3" in most.counterexample["got"]
    assert most.counterexample["calls"][0] == "Gate() -> s"


def test_a_check_then_set_race_is_found_under_concurrency_only() -> None:
    racy = _run(COUNTER, """
        class Gate:
            def __init__(self):
                self.n = 0
            def enter(self, who):
                if self.n >= 2:
                    return False
                self.n += 1
                return True
    """)
    most = racy.by_id()["at_most"]
    assert most.status == "failed" and most.counterexample is not None
    assert most.counterexample.get("concurrent") is True
    assert "preempts" in most.counterexample["schedule"]
    assert "the count reached 3" in most.counterexample["got"]
    for name in ("calls", "trace"):
        assert most.counterexample[name]


def test_lower_bounds_are_checked_at_the_end_of_a_run() -> None:
    ev = _run("""\
        spec s version 1
        system Q
            operation put(x: int) -> none
            operation take() -> int
            invariant taken: count(take) >= 1
    """, """
        class Q:
            def put(self, x):
                return None
            def take(self):
                return 0
    """)
    taken = ev.by_id()["taken"]
    assert taken.status == "failed" and "ended at 0" in (taken.counterexample or {})["got"]


def test_operation_clauses_are_judged_in_sequences() -> None:
    ev = _run("""\
        spec s version 1
        enum Outcome { ok, rejected }
        system Store
            operation issue(user: str) -> str
            operation redeem(token: str from issue, pin: int in 0..9999) -> Outcome
                raises ValueError when pin == 0
                ensures U: pin < 1000 implies result == Outcome.rejected
    """, """
        class Store:
            def issue(self, user):
                return "t-" + user
            def redeem(self, token, pin):
                if pin == 0:
                    raise ValueError
                return "rejected" if pin <= 1000 else "ok"
    """)
    assert _status(ev)["U"] == "passed"
    assert _status(ev)["Store.redeem.raises.ValueError"] == "passed"
    assert ev.status == "passed", ev.summary()


def test_a_call_sequence_hypothesis_cannot_replay_fails_every_obligation_of_the_system(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Flaky`` without a failure of ours in it (the draws of a sequence differed, as when
    a result that feeds later calls changed): only the candidate's results feed the draws,
    so the system's obligations fail as nondeterministic; never an internal error."""
    import hypothesis.stateful
    from hypothesis.errors import FlakyStrategyDefinition

    def unreplayable(*args: Any, **kwargs: Any) -> None:
        raise FlakyStrategyDefinition("Inconsistent data generation!")

    monkeypatch.setattr(hypothesis.stateful, "run_state_machine_as_test", unreplayable)
    evidence = _run("""
        spec box version 1
        system Box
            operation put(x: int) -> int
                ensures: result == x + 1
            invariant few: count(put) <= 5
        """, """
        class Box:
            def put(self, x):
                return x + 1
        """)
    assert evidence.status == "failed"
    by_id = evidence.by_id()
    for oid in ("few", *[i for i in by_id if i.startswith("Box.put.ensures")]):
        counterexample = by_id[oid].counterexample
        assert counterexample is not None and counterexample["reason"] == "nondeterministic"
        assert "Inconsistent data generation" in counterexample["got"]
    assert evidence.to_json()["reason"].startswith("nondeterministic: ")
