"""The interleaving explorer running inside the sandbox, on every backend.

A count invariant such as "one reset per token" is broken by a check-then-set race that
only a systematic exploration of thread interleavings finds (docs/architecture.md,
"Concurrency").  These tests run the engine through a ``SandboxCaller``: the racy
TokenStore of the corpus must fail with a concurrent counterexample (the schedule and
the interleaving), the locked one must pass with interleavings actually explored.  Then
the pieces: the explorer is staged beside the worker where no candidate file can take
its place, it is loaded only when an exploration is asked for, answers come in batches
within the limit, a stuck exploration is killed at its own deadline, and every explore
answer the host receives is validated: a malformed one is a protocol error that taints
the session, like any other violation.
"""

from __future__ import annotations

import json
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from derivative.api import parse_text
from derivative.forge.inside import _worker
from derivative.forge.run import SandboxCaller
from derivative.forge.sandbox._channel import (
    ExploreBatch,
    FrameChannel,
    SetupRef,
    Transcript,
    parse_explore_batch,
)
from derivative.forge.sandbox._process import ProcessLauncher
from derivative.forge.sandbox._sandbox import (
    EXPLORER_NAME,
    EXPLORER_SOURCE,
    CallResult,
    Launcher,
    Limits,
    Running,
    Sandbox,
    Staged,
    open_sandbox,
)
from derivative.forge.testing import (
    ConcurrentCaller,
    Engine,
    EngineOptions,
    Interleaving,
    Ref,
)
from derivative.solver._boundary import clear_cache

pytestmark = pytest.mark.slow

Make = Callable[..., Sandbox]

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "token_store_race"
OPTIONS = EngineOptions(examples=20, sequences=5, steps=8, interleavings=300)


def _engine_run(launcher: Launcher, candidate: str) -> Any:
    clear_cache()
    info = parse_text((CORPUS / "spec.req").read_text(encoding="utf-8")).types
    with open_sandbox(CORPUS / candidate, contract_sha256="0" * 64, launcher=launcher) as sb:
        engine = Engine(info, SandboxCaller(sb), OPTIONS)
        evidence = engine.run()
        assert not sb.tainted
        return evidence, engine.stats


def _batch(result: CallResult) -> ExploreBatch:
    assert result.ok and isinstance(result.value, ExploreBatch), result
    return result.value


# --------------------------------------------------------------------------- the engine


def test_the_sandbox_caller_is_a_concurrent_caller() -> None:
    assert isinstance(SandboxCaller(object()), ConcurrentCaller)


def test_a_racy_token_store_fails_with_a_concurrent_counterexample(launcher: Launcher) -> None:
    evidence, _ = _engine_run(launcher, "wrong.py")
    single = evidence.by_id()["single_use"]
    assert single.status == "failed", evidence.summary()
    example = single.counterexample
    assert example is not None and example.get("concurrent") is True
    assert "the count reached 2" in example["got"]
    # the schedule says who preempted whom, where; the trace shows both threads' lines
    assert "preempts thread 1" in example["schedule"] and "wrong.py:" in example["schedule"]
    trace = example["trace"]
    assert "thread 1" in trace and "thread 2" in trace and "switch" in trace
    assert "self._used[token] = True" in trace
    assert any("s.reset(" in line for line in example["calls"])
    # sequentially the race is invisible: only the concurrent check could find it
    assert next(t for t in single.triggers if t.id == "single_use#1").hits > 0


def test_a_locked_token_store_passes_with_interleavings_explored(launcher: Launcher) -> None:
    evidence, stats = _engine_run(launcher, "correct.py")
    assert evidence.status == "passed", evidence.summary()
    single = evidence.by_id()["single_use"]
    assert single.note is None
    concurrent = next(t for t in single.triggers if t.kind == "concurrency")
    assert concurrent.hits > 0
    explored = stats["TokenStore"]["single_use:interleavings"]
    assert explored == concurrent.hits and explored > 1


# --------------------------------------------------------------------------- staging


def test_the_explorer_is_staged_beside_the_worker_readable_not_writable(
    write_candidate: Callable[..., Path],
) -> None:
    assert EXPLORER_NAME == _worker.EXPLORER_FILE
    sb = open_sandbox(write_candidate("X = 1\n"), contract_sha256="c",
                      launcher=ProcessLauncher())
    try:
        staged = sb.staged
        assert staged.explorer == staged.sandbox_dir / EXPLORER_NAME
        assert staged.explorer.read_bytes() == EXPLORER_SOURCE.read_bytes()
        mode = stat.S_IMODE(staged.explorer.stat().st_mode)
        assert mode == 0o644
        # outside the candidate's folder, so not part of the candidate's digest or files
        assert EXPLORER_NAME not in staged.files
    finally:
        sb.close()


def test_the_plain_fallback_explores_too() -> None:
    """Without namespaces the worker finds the explorer beside the staged candidate."""
    from derivative._values import EnumValue

    plain = ProcessLauncher(namespaces=False)
    with open_sandbox(CORPUS / "wrong.py", contract_sha256="c", launcher=plain) as sb:
        calls = [("reset", [SetupRef(0), "a-long-password"])] * 2
        batch = _batch(sb.explore("TokenStore", [("issue", ["ann"])], calls, limit=100,
                                  batch=100))
        ok = EnumValue("Outcome", "ok")
        both = [r for r in batch.runs if all(o.value == ok for o in r.outcomes)]
        assert both and "preempts" in both[0].schedule  # the race, found in the sandbox
        assert len(both) < len(batch.runs)  # and only under some schedules


SHADOWS = """
import sys
MARK = []

class Box:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return self.n

def explorer_loaded():
    return "_derivative_sandbox_explorer" in sys.modules
"""

POISON = "raise RuntimeError('a candidate module stood in for the explorer')\n"


def test_no_candidate_module_can_stand_in_for_the_explorer(
    launcher: Launcher, tmp_path: Path
) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text(SHADOWS)
    for name in ("explorer", "_explore", "_derivative_sandbox_explorer", "worker"):
        (package / f"{name}.py").write_text(POISON)
        (tmp_path / f"{name}.py").write_text(POISON)
    with open_sandbox(tmp_path, module="shop.core", contract_sha256="c",
                      launcher=launcher) as sb:
        assert sb.call("explorer_loaded").value is False  # ordinary runs never load it
        batch = _batch(sb.explore("Box", [], [("bump", []), ("bump", [])], limit=5))
        assert batch.runs
        assert sb.call("explorer_loaded").value is True
        for run in batch.runs:
            got = sorted(o.value for o in run.outcomes if isinstance(o.value, int))
            assert got in ([1, 2], [1, 1], [2, 2]), got  # n += 1 races: lost updates too
        assert not sb.tainted


BOX = """
import threading

class Store:
    def __init__(self):
        self.used = {}
        self.lock = threading.Lock()
        self.issued = 0

    def issue(self, user):
        self.issued += 1
        return f"{user}-{self.issued}"

    def take(self, token, times):
        with self.lock:
            if self.used.get(token):
                return "again"
            self.used[token] = True
        print("taken", token, times)
        return [token, times]

    def fail(self):
        raise KeyError("nope")

class Broken:
    def __init__(self):
        raise ValueError("cannot build")

    def take(self):
        return 1

class Slow:
    made = 0

    def __init__(self):
        Slow.made += 1
        if Slow.made > 1:
            import time
            time.sleep(60)

    def take(self):
        return 1
"""


def test_runs_come_in_batches_within_the_limit_with_set_up_results(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(BOX, launcher)
    calls = [("take", [SetupRef(0), 1]), ("take", [SetupRef(0), 2]), ("fail", [])]
    batches = [_batch(sb.explore("Store", [("issue", ["ann"])], calls, limit=11, batch=4))]
    while batches[-1].more:
        batches.append(_batch(sb.explore_next()))
    runs = [run for batch in batches for run in batch.runs]
    assert len(runs) == 11 and all(len(b.runs) <= 4 for b in batches) and len(batches) == 3
    assert len({run.schedule for run in runs}) == 11  # each schedule once
    for run in runs:
        assert [o.value for o in run.setup] == ["ann-1"]
        taken = [o.value for o in run.outcomes[:2]]
        assert taken.count("again") == 1, taken  # the lock lets exactly one through
        assert next(v for v in taken if v != "again") in (["ann-1", 1], ["ann-1", 2])
        failed = run.outcomes[2]
        assert not failed.ok and failed.exc is not None and failed.exc.name == "KeyError"
        assert failed.exc.phase == "call" and not run.deadlock
        assert run.schedule.startswith("[") and "thread" in run.trace
    assert sb.explore_next().status == "error"  # the search is over
    assert sb.call("Store").status == "returned"  # ordinary calls go on
    assert not sb.tainted


def test_a_constructor_that_fails_is_each_calls_outcome(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(BOX, launcher)
    result = sb.explore("Broken", [("take", [])], [("take", []), ("take", [])], limit=3)
    for run in _batch(result).runs:
        exc = run.setup[0].exc
        assert len(run.setup) == 1 and exc is not None and exc.message == "cannot build"
        assert all(o.exc is not None and o.exc.name == "ValueError" for o in run.outcomes)


def test_requests_the_worker_cannot_serve_are_errors_not_violations(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(BOX, launcher)
    missing = sb.explore("Nowhere", [], [("take", [])], limit=3)
    assert missing.status == "error" and missing.exc is not None
    assert missing.exc.phase == "lookup"
    # a $ref beyond the set-up calls, sent around the host's own check
    for ref in (3, -1, "0"):
        raw = sb._request({"op": "explore", "target": "Store", "args": {
            "setup": [["issue", ["a"]]], "calls": [["take", [{"$ref": ref}, 1]]],
            "limit": 3, "timeout": 5, "batch": 2}}, decode=False)
        assert raw.status == "error" and raw.exc is not None, raw
        assert raw.exc.name == "SandboxDecodeError" and "$ref" in raw.exc.message
    nested = sb._request({"op": "explore", "target": "Store", "args": {
        "setup": [["issue", ["a"]]], "calls": [["take", [[{"$ref": 0}], 1]]],
        "limit": 3, "timeout": 5, "batch": 2}}, decode=False)
    assert nested.status == "error" and nested.exc is not None
    assert nested.exc.phase == "decode"
    assert sb._request({"op": "explore_next"}, decode=False).status == "error"
    assert not sb.tainted
    # and the host refuses such references before sending anything
    with pytest.raises(ValueError, match="set-up result"):
        sb.explore("Store", [("issue", ["a"])], [("take", [SetupRef(1), 1])], limit=2)
    with pytest.raises(ValueError, match="set-up result"):
        sb.explore("Store", [("issue", [SetupRef(0)])], [("take", [])], limit=2)
    with pytest.raises(TypeError):
        sb.explore("Store", [("issue", ["a"])], [("take", [[SetupRef(0)], 1])], limit=2)


def test_a_stuck_exploration_is_killed_at_its_own_deadline(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(BOX, launcher, Limits(call_timeout=1.0, explore_timeout=0.5))
    started = time.monotonic()
    result = sb.explore("Slow", [], [("take", []), ("take", [])], limit=50)
    elapsed = time.monotonic() - started
    assert result.status == "timeout", result
    assert 1.4 <= elapsed < 15.0  # the exploration's 0.5 s plus the call's 1 s, and a margin
    assert sb.call("Store").ok and sb.restarts == 1
    assert [r.ended for r in sb.close()] == ["timeout", "closed"]


def test_the_engine_fails_an_exploration_that_never_finishes() -> None:
    class Stuck:
        def explore(self, *args: Any, **kwargs: Any) -> CallResult:
            return CallResult("timeout", detail="killed after the call time limit")

        def explore_close(self) -> None:
            pass

    caller = SandboxCaller(Stuck())
    runs = list(caller.explore("S", [("issue", ["a"])], [("take", [Ref(0)])] * 2, 10,
                               lambda run: False))
    assert len(runs) == 1 and runs[0].deadlock
    assert "timeout" in runs[0].schedule
    assert [o.raised.name for o in runs[0].outcomes if o.raised] == ["SandboxTimeout"] * 2


# --------------------------------------------------------------------------- untrusted answers


def _exc(mro: list[str], message: str = "", **changes: Any) -> dict[str, Any]:
    """The worker's ``exc`` for built-in classes (the wire format of ``_worker.py``)."""
    exc = {"mro": mro, "modules": ["builtins"] * len(mro), "builtin": [True] * len(mro),
           "message": message, "phase": "call"}
    exc.update(changes)
    return exc


def _run(**changes: Any) -> dict[str, Any]:
    run: dict[str, Any] = {
        "schedule": "[3:1] thread 1 -> thread 2",
        "setup": [{"ok": True, "value": "ann-1"}],
        "outcomes": [{"ok": True, "value": 1},
                     {"ok": False, "exc": _exc(["KeyError", "LookupError", "Exception"],
                                               "'x'")}],
        "trace": "schedule 3:1\n  thread 1 cand.py:3  x = 1",
        "deadlock": False,
    }
    run.update(changes)
    return run


def _answer(runs: list[Any], more: bool = False, **extra: Any) -> dict[str, Any]:
    return {"runs": runs, "more": more, **extra}


MALFORMED: dict[str, Any] = {
    "not an object": [_run()],
    "extra key": _answer([_run()], extra=1),
    "more not a boolean": {"runs": [_run()], "more": 1},
    "runs not a list": {"runs": {"0": _run()}, "more": False},
    "more runs than the batch": _answer([_run()] * 5),
    "more promised, nothing brought": _answer([], more=True),
    "run with a missing key": _answer([{k: v for k, v in _run().items() if k != "trace"}]),
    "run with an extra key": _answer([_run(pid=4)]),
    "deadlock not a boolean": _answer([_run(deadlock="no")]),
    "too few outcomes": _answer([_run(outcomes=[{"ok": True, "value": 1}])]),
    "too many set-up outcomes": _answer([_run(setup=[{"ok": True, "value": 1}] * 2)]),
    "no set-up outcome": _answer([_run(setup=[])]),
    "an unknown reference in a value": _answer(
        [_run(outcomes=[{"ok": True, "value": {"$ref": 0}}, {"ok": True, "value": 2}])]),
    "an instance handle in a value": _answer(
        [_run(outcomes=[{"ok": True, "value": {"$instance": 1}}, {"ok": True, "value": 2}])]),
    "an outcome with both value and exc": _answer(
        [_run(outcomes=[{"ok": True, "value": 1, "exc": None}, {"ok": True, "value": 2}])]),
    "a bad exception": _answer(
        [_run(outcomes=[{"ok": False, "exc": _exc([])}, {"ok": True, "value": 2}])]),
    "an exception without modules": _answer(
        [_run(outcomes=[{"ok": False, "exc": {"mro": ["KeyError"], "message": "",
                                              "phase": "call"}},
                        {"ok": True, "value": 2}])]),
    "a look-alike flagged built-in": _answer(
        [_run(outcomes=[{"ok": False, "exc": _exc(["KeyError"], modules=["cand"])},
                        {"ok": True, "value": 2}])]),
    "schedule not a string": _answer([_run(schedule=["3:1"])]),
    "a huge schedule": _answer([_run(schedule="s" * 5000)]),
    "a huge trace": _answer([_run(trace="t" * 20000)]),
    "a trace of too many lines": _answer([_run(trace="row\n" * 150)]),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_explore_answers_are_refused(name: str) -> None:
    from derivative.forge.sandbox._channel import ProtocolError

    with pytest.raises(ProtocolError):
        parse_explore_batch(MALFORMED[name], setup=1, calls=2, batch=4)


def test_a_well_formed_answer_is_read_and_its_text_made_safe() -> None:
    answer = _answer([_run(trace="line\x1b[31m red\r\nnext\tcol"),
                      _run(setup=[{"ok": False, "exc": _exc(["ValueError"], "m")}])], more=True)
    batch = parse_explore_batch(answer, setup=1, calls=2, batch=4)
    assert batch.more and len(batch.runs) == 2
    first = batch.runs[0]
    assert first.trace == "line\ufffd[31m red\ufffd\nnext\tcol"
    assert first.setup[0].value == "ann-1" and first.outcomes[0].value == 1
    assert first.outcomes[1].exc is not None and first.outcomes[1].exc.name == "KeyError"
    assert not batch.runs[1].setup[0].ok  # the constructor failed: one outcome stands for all


def test_one_set_up_outcome_stands_for_all_only_when_the_constructor_failed() -> None:
    from derivative.forge.sandbox._channel import ProtocolError

    failed = {"ok": False, "exc": _exc(["ValueError"], "m")}
    batch = parse_explore_batch(_answer([_run(setup=[failed])]), setup=3, calls=2, batch=1)
    assert len(batch.runs[0].setup) == 1
    with pytest.raises(ProtocolError, match="set-up outcomes"):
        parse_explore_batch(_answer([_run()]), setup=3, calls=2, batch=1)


# A sandbox whose worker is a script: every answer to explore requests is whatever the
# test says, as a candidate writing into the channel could make it.


class ScriptedTransport:
    def __init__(self, answer: Callable[[dict[str, Any]], Any]) -> None:
        self.answer = answer
        self.pending = bytearray()
        self.requests: list[dict[str, Any]] = []

    def write_all(self, data: bytes, deadline: float) -> None:
        body = json.loads(data.split(b"\n", 1)[1])
        self.requests.append(body)
        if body["op"] == "load":
            reply: Any = {"id": body["id"], "ok": True, "value": {"module": "cand"}}
        else:
            reply = {"id": body["id"], "ok": True, "value": self.answer(body)}
        raw = json.dumps(reply).encode()
        self.pending.extend(str(len(raw)).encode() + b"\n" + raw)

    def read_some(self, limit: int, deadline: float) -> bytes:
        out = bytes(self.pending[:limit])
        del self.pending[:limit]
        return out

    def close(self) -> None:
        pass


class ScriptedRunning(Running):
    def __init__(self, transport: ScriptedTransport, transcript: Transcript) -> None:
        self.transport = transport
        self.channel = FrameChannel(transport, transcript)
        self.isolation = ("scripted",)
        self.image_id = None
        self.started_monotonic = time.monotonic()
        self.killed = False

    def kill(self) -> None:
        self.killed = True

    def finish(self, timeout: float) -> int | None:
        return 0


class ScriptedLauncher(Launcher):
    name: Literal["process", "docker"] = "process"

    def __init__(self, answer: Callable[[dict[str, Any]], Any]) -> None:
        self.answer = answer
        self.started: list[ScriptedRunning] = []

    def launch(self, staged: Staged, limits: Limits, transcript: Transcript,
               deadline: float) -> Running:
        running = ScriptedRunning(ScriptedTransport(self.answer), transcript)
        self.started.append(running)
        return running


@pytest.fixture
def scripted(write_candidate: Callable[..., Path]) -> Iterator[Callable[..., Sandbox]]:
    made: list[Sandbox] = []

    def make(answer: Callable[[dict[str, Any]], Any]) -> Sandbox:
        sb = open_sandbox(write_candidate("X = 1\n"), contract_sha256="c",
                          launcher=ScriptedLauncher(answer))
        made.append(sb)
        sb.start()
        return sb

    yield make
    for sb in made:
        sb.close()


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_explore_answer_taints_the_session(
    name: str, scripted: Callable[..., Sandbox]
) -> None:
    sb = scripted(lambda request: MALFORMED[name])
    result = sb.explore("Store", [("issue", ["a"])], [("take", [SetupRef(0)]), ("fail", [])],
                        limit=10, batch=4)
    assert result.status == "protocol_error", result
    assert sb.tainted
    receipts = sb.close()
    assert receipts[0].ended == "protocol_error" and receipts[0].protocol_errors == 1


def test_more_schedules_than_the_limit_taint_the_session(
    scripted: Callable[..., Sandbox]
) -> None:
    sb = scripted(lambda request: _answer([_run()] * 3, more=True))
    first = sb.explore("Store", [("issue", ["a"])], [("take", []), ("fail", [])], limit=5,
                       batch=4)
    assert len(_batch(first).runs) == 3 and not sb.tainted
    second = sb.explore_next()
    assert second.status == "protocol_error" and "limit" in second.detail
    assert sb.tainted


def test_the_request_carries_the_plan_and_the_answers_reach_the_engine(
    scripted: Callable[..., Sandbox]
) -> None:
    answers = iter([_answer([_run()] * 2, more=True), _answer([_run()], more=True)])
    sb = scripted(lambda request: next(answers) if request["op"] != "explore_close"
                  else {"closed": True})
    seen: list[Interleaving] = []

    def stop(run: Interleaving) -> bool:
        seen.append(run)
        return len(seen) == 3

    caller = SandboxCaller(sb)
    runs = list(caller.explore("Store", [("issue", ["a"])], [("take", [Ref(0), 2])] * 2, 9,
                               stop))
    assert len(runs) == 3 and not sb.tainted
    assert runs[0].setup[0].value == "ann-1"
    assert runs[0].outcomes[1].raised is not None and runs[0].outcomes[1].raised.is_a(
        "LookupError")
    assert sb._current is not None
    transport = sb._current.running.transport  # type: ignore[attr-defined]
    ops = [r["op"] for r in transport.requests]
    assert ops == ["load", "explore", "explore_next", "explore_close"]
    explore = transport.requests[1]
    assert explore["target"] == "Store"
    assert explore["args"]["calls"] == [["take", [{"$ref": 0}, 2]]] * 2
    assert explore["args"]["setup"] == [["issue", ["a"]]]
    assert explore["args"]["limit"] == 9 and explore["args"]["timeout"] > 0
