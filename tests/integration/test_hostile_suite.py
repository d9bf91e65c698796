"""The hostile suite: every program of ``tests/hostile/`` run for real on both backends.

Each program runs under the ``permissive`` posture policy (the static validator reports but
does not stop it, so the OS boundary alone must hold) and under ``default`` (statically
visible acts are refused before anything runs: the verdict is checked against the
manifest; the rest run).  For every run the host checks (see ``_hostile.py``):

- the host is unharmed: the probe folders and their ``SENTINEL`` are byte for byte as
  planted, the repository's file and the copy the sandbox was given are unchanged, the
  listener on 127.0.0.1:47123 received nothing, no process of the sandbox is left (by PID
  namespace and by staged folder) and no container is left;
- no canary (the environment's, the probe folders' 0600 files, the file named by
  ``DERIVATIVE_CANARY_FILE``) and no ``DERIVATIVE-BREACH`` marker appears in any answer,
  frame, receipt or captured output;
- the run ends within its limits (wall time measured per program);
- the outcome is never better than the answers justify: ``f(x) == x + 1`` is judged on the
  host, a wrong answer, a tainted session, a timeout or a crash is a failure, and a program
  whose real answer is wrong never passes;
- the outcome is the one the manifest expects, or a deviation listed below with its reason.

``DERIVATIVE_WRITE_HOSTILE_TABLE=1 python -m pytest tests/integration/test_hostile_suite.py``
also writes ``docs/hostile-suite.md`` from the run (only when every combination ran).

Controls at the end show that the probes can fail: the taps see what a sandboxed program
prints and returns, the leftover check sees a running sandbox, and the weaker plain child
(no namespaces) is caught reaching the listener and seeing the host's ``SENTINEL``.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _hostile import (
    CONTRACT_SHA256,
    ENTRIES,
    HANDFUL,
    HOSTILE_DIR,
    LIMITS,
    PROBE_PORT,
    TEARDOWN_SLACK,
    HostProbes,
    RecordingLauncher,
    RunRecord,
    host_probes,
    leftovers,
    run_program,
    wait_no_leftovers,
)

from derivative.forge.posture._validate import validate_path
from derivative.forge.sandbox._process import ProcessLauncher
from derivative.forge.sandbox._sandbox import Launcher, open_sandbox

pytestmark = pytest.mark.slow

IDS = [e["file"] for e in ENTRIES]
BACKENDS = ("process", "docker")
POLICIES = ("permissive", "default")
TABLE_ENV = "DERIVATIVE_WRITE_HOSTILE_TABLE"
TABLE_PATH = Path(__file__).resolve().parents[2] / "docs" / "hostile-suite.md"

OUTCOMES: dict[str, frozenset[str]] = {
    "correct": frozenset({"passed"}),
    "wrong": frozenset({"wrong", "protocol_error"}),
    "killed": frozenset({"timeout"}),
    "crash": frozenset({"crashed"}),
    "out_of_memory": frozenset({"out_of_memory"}),
    "exception": frozenset({"raised"}),
    "load_failure": frozenset({"load_failure"}),
    "correct or killed": frozenset({"passed", "timeout", "crashed", "out_of_memory"}),
    "wrong (unless the forgery works)": frozenset({"wrong", "protocol_error"}),
}
"""The manifest's ``outcome_if_contained`` as the judge's outcomes.  A forged frame caught
by the host (``protocol_error``, the session tainted) is as much a failure as a wrong
answer."""

DEVIATIONS: dict[tuple[str, str], tuple[frozenset[str], str]] = {
    ("thread_outlives_call.py", "process"): (
        frozenset({"raised"}),
        "every call starts another 600 s thread; after 13 the 512 MiB address-space limit "
        "(each thread reserves a stack and a malloc arena) refuses the next one and the "
        "call raises RuntimeError",
    ),
    ("thread_outlives_call.py", "docker"): (
        frozenset({"raised"}),
        "every call starts another 600 s thread; after 31 the pids limit (32) refuses the "
        "next one and the call raises RuntimeError",
    ),
    ("gc_forge_channel.py", "process"): (
        frozenset({"raised"}),
        "walking gc.get_objects() can meet ctypes' library loaders (the worker's set-up loaded "
        "ctypes before the runner was forked): their getattr('send') tries to load a library "
        "called 'send' and raises OSError, which ends f before any frame is sent",
    ),
    ("gc_forge_channel.py", "docker"): (
        frozenset({"raised"}),
        "as on the process backend: gc meets ctypes.cdll first, getattr raises OSError",
    ),
    ("recursion_crash.py", "process"): (
        frozenset({"timeout", "passed"}),
        "Python >= 3.11 does not use the C stack for Python-to-Python calls, so there is no "
        "SIGSEGV: the recursion reaches the 1,000,000 limit, f catches the RecursionError "
        "and returns x + 1, after 2.5 to 5 s a call; depending on the machine's speed that "
        "is a kill at the 3 s call limit or a pass that every answer justifies",
    ),
    ("recursion_crash.py", "docker"): (
        frozenset({"timeout", "passed"}),
        "as on the process backend (the image's Python is >= 3.11 too)",
    ),
}
"""Outcomes seen here that differ from the manifest's expectation, each a failure of the
program (never a pass) with its cause.  None is a breach."""

KNOWN_FORGERIES = frozenset({"patch_worker_main.py", "patch_json_module.py"})
"""Programs that rewrite, from inside the worker's interpreter, what the worker encodes
with (``__main__.encode``, ``json.dumps``) so that the wrong answer x + 2 would cross as
x + 1.  The default policy refuses both statically; under ``permissive`` the worker's pins
(``forge/inside/_worker.py``: everything on the result-to-frame path is bound before the
candidate is imported, and ``__main__`` is hidden) must make the forgery fail: a pass
would be a breach, and the table would mark it FORGED PASS."""

PROCESS_ISOLATION = frozenset({
    "namespace:user", "namespace:mount", "namespace:network", "namespace:pid",
    "uid:65534", "capabilities:none", "no_new_privs", "root:private-readonly",
    "tmp:private-tmpfs", "env:scrubbed", "seccomp:filter", "swap:none",
})
DOCKER_ISOLATION = frozenset({
    "network:none", "root:read-only", "tmp:private-tmpfs", "uid:65534",
    "capabilities:none", "no_new_privs", "seccomp:docker-default",
})


def wrong_by_design(entry: dict[str, Any]) -> bool:
    """Whether the program's own answer is not x + 1 (or it never answers)."""
    return str(entry["answer"]).strip() != "x + 1"


NON_ENFORCING_FORGERIES: dict[str, str] = {
    "fd_relay.py": "the relay sits under the runner's private pipe (the channel itself is in "
    "the judge's process) and rewrites the runner's answers; under a non-enforcing policy "
    "nothing stops a candidate that escaped the restricted language from misreporting its "
    "own results, which is why such evidence is marked non-enforcing and never verified",
}
"""Programs that forge a pass under ``permissive`` by design of that policy (no posture,
no guard); under ``default`` each is refused (and, past the posture, the guard refuses
it: ``test_sandbox_guard.py``)."""


def accepted_outcomes(entry: dict[str, Any], backend: str,
                      policy: str = "permissive") -> frozenset[str]:
    base = OUTCOMES[entry["outcome_if_contained"]]
    extra = DEVIATIONS.get((entry["file"], backend))
    base |= extra[0] if extra else frozenset()
    if policy == "default":
        base |= {"guard_refused"}  # the second layer: a refusal is never a pass
    if policy == "permissive" and entry["file"] in NON_ENFORCING_FORGERIES:
        base |= {"passed"}
    return base


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def probes() -> Iterator[HostProbes]:
    with host_probes() as planted:
        yield planted


Floods = dict[tuple[str, str], list[str]]


@pytest.fixture(scope="module")
def floods() -> Floods:
    """What the flood tests saw, per (case, backend): one line per round."""
    return {}


@pytest.fixture(scope="module")
def records(floods: Floods) -> Iterator[dict[tuple[str, str, str], RunRecord]]:
    """Every run's record; written out as the table when asked and complete."""
    collected: dict[tuple[str, str, str], RunRecord] = {}
    began = time.monotonic()
    yield collected
    if os.environ.get(TABLE_ENV) != "1":
        return
    wanted = {(e["file"], b, p) for e in ENTRIES for b in BACKENDS for p in POLICIES}
    if set(collected) != wanted:
        missing = len(wanted - set(collected))
        print(f"\n{TABLE_ENV}=1: {missing} combination(s) did not run; "
              f"{TABLE_PATH} left as it was", file=sys.stderr)
        return
    table = render_table(collected, floods, time.monotonic() - began)
    TABLE_PATH.write_text(table, encoding="utf-8")
    print(f"\nwrote {TABLE_PATH}", file=sys.stderr)


# --------------------------------------------------------------------------- the suite


def _check_policy(entry: dict[str, Any], record: RunRecord, policy: str) -> None:
    default = validate_path(HOSTILE_DIR / entry["file"], "default")
    default_findings = [(f.strategy, f.line) for f in default.findings]
    assert record.findings == default_findings, "both policies report the same findings"
    if policy == "permissive":
        assert record.accepted, "the permissive policy reports, never refuses"
        assert record.ran
        return
    expected = entry["default_policy"]
    assert record.accepted == expected["accepted"], record.findings
    for item in expected["findings"]:
        assert (item["strategy"], item["line"]) in record.findings, item
    assert record.ran == record.accepted, "refused means nothing ran"


def _check_isolation(record: RunRecord) -> None:
    wanted = PROCESS_ISOLATION if record.backend == "process" else DOCKER_ISOLATION
    assert wanted <= set(record.isolation), sorted(wanted - set(record.isolation))
    assert not any(i.startswith("weaker") for i in record.isolation), record.isolation
    budget = "memory:cgroup-" if record.backend == "process" else "memory:"
    assert any(i.startswith(budget) for i in record.isolation), record.isolation


def _check_host(record: RunRecord) -> None:
    assert record.harm == [], record.harm
    assert record.leaks == [], record.leaks
    assert record.breach_lines == [], record.breach_lines
    assert record.namespaces and all(record.namespaces), "the leftover check had no target"
    assert record.run_wall <= LIMITS.run_timeout + 2.0, record.run_wall
    assert record.total_wall <= LIMITS.run_timeout + TEARDOWN_SLACK, record.total_wall


def _check_justified(entry: dict[str, Any], record: RunRecord) -> None:
    """The outcome is never better than the answers, the session and the receipts allow."""
    receipts = record.receipts
    assert receipts, "no verdict without receipts"
    if record.outcome != "passed":
        return
    assert len(record.calls) >= len(HANDFUL)
    assert [c.x for c in record.calls[: len(HANDFUL)]] == list(HANDFUL)
    assert all(c.correct and c.status == "returned" for c in record.calls)
    assert not record.tainted
    assert all(r["ended"] == "closed" and r["protocol_errors"] == 0 for r in receipts), receipts
    assert sum(r["calls"] for r in receipts) == len(record.calls)
    assert record.restarts == 0


def _check_outcome(entry: dict[str, Any], record: RunRecord) -> None:
    if record.policy == "default" and wrong_by_design(entry):
        assert not record.passed, "under default no wrong program passes"
    if record.outcome in ("timeout", "crashed", "out_of_memory"):
        assert record.follow_up, "a fresh sandbox was asked for the next call"
        assert any(r["ended"] in ("timeout", "run_timeout", "crashed", "out_of_memory") for r in
                   record.receipts), record.receipts
    if record.tainted:
        assert record.outcome == "protocol_error"
    assert record.outcome in accepted_outcomes(entry, record.backend, record.policy), (
        record.outcome, record.detail)
    extra = DEVIATIONS.get((entry["file"], record.backend), (frozenset(), ""))[0]
    forged_by_design = record.policy == "permissive" and entry["file"] in NON_ENFORCING_FORGERIES
    if wrong_by_design(entry) and "passed" not in extra and not forged_by_design:
        assert not record.passed, "a program whose own answer is wrong never passes"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_hostile_program(
    entry: dict[str, Any],
    policy: str,
    launcher: Launcher,
    probes: HostProbes,
    records: dict[tuple[str, str, str], RunRecord],
    tmp_path: Path,
) -> None:
    record = run_program(entry, launcher, policy, probes, tmp_path)
    records[(entry["file"], launcher.name, policy)] = record
    _check_policy(entry, record, policy)
    if not record.ran:
        return
    _check_isolation(record)
    _check_host(record)
    _check_justified(entry, record)
    _check_outcome(entry, record)


# --------------------------------------------------------------------------- floods

FLOOD = '''
import threading
import time

def _flood():
    end = time.monotonic() + 20.0  # bounded: 20 s of output
    line = "A" * 65536
    while time.monotonic() < end:
        print(line)

def f(x):
    _flood()
    return x + 1

def g(x):
    threading.Thread(target=_flood).start()  # not a daemon: it outlives the answer
    return x + 1
'''


def _flood_launcher(launcher: Launcher, probes: HostProbes) -> RecordingLauncher:
    """The backend, recorded; for Docker a launcher of its own with the client's time-out
    lowered to 15 s, so that a hung engine call costs seconds, not the default two minutes
    (the assertions still see it)."""
    if launcher.name == "docker":
        from derivative.forge.sandbox._docker import DockerLauncher

        own = DockerLauncher.connect()
        own.client.api.timeout = 15
        launcher = own
    return RecordingLauncher(launcher, probes.needles)


def _gone(recorder: RecordingLauncher, marker: str) -> list[str]:
    """What is left of the sandboxes ``recorder`` started: processes and containers."""
    left = wait_no_leftovers(recorder.namespaces, [marker])
    client = getattr(recorder.inner, "client", None)
    for cid in recorder.containers:
        try:
            assert client is not None
            client.api.inspect_container(cid)
        except Exception:
            continue
        left.append(f"container {cid[:12]}")
    return left


def test_a_call_flooding_its_output_is_killed_at_its_limit(
    launcher: Launcher, write_candidate: Callable[..., Path], floods: Floods,
    probes: HostProbes,
) -> None:
    """The wall-clock limit holds while the candidate floods its output.

    The host stops reading the sandbox's output when the call's time is up and kills the
    sandbox; the kill must not wait for output nobody reads.  Two rounds, because whether
    the engine's buffers are full at the moment of the kill is a matter of timing.
    """
    chosen = _flood_launcher(launcher, probes)
    limits = dataclasses.replace(LIMITS, call_timeout=2.0, run_timeout=6.0)
    path = write_candidate(FLOOD)
    for _ in range(2):
        began = time.monotonic()
        with open_sandbox(path, contract_sha256=CONTRACT_SHA256, launcher=chosen,
                          limits=limits, guard=False) as sb:  # the OS teardown alone
            result = sb.call("f", [1])
            answered = time.monotonic() - began
            marker = str(sb.staged.root)
        closed = time.monotonic() - began
        left = _gone(chosen, marker)
        held = answered <= limits.call_timeout + 3.0 and not left
        floods.setdefault(("a call floods its output", launcher.name), []).append(
            f"{result.status} after {answered:.1f} s, closed after {closed:.1f} s"
            + (f", left behind: {', '.join(left)}" if left else "")
            + ("" if held else " **(the limit did not hold)**"))
        assert result.status in ("timeout", "raised"), result  # never a pass
        assert answered <= limits.call_timeout + 3.0, (answered, result.status)
        assert closed <= limits.call_timeout + 3.0 + TEARDOWN_SLACK, closed
        assert left == []


def test_a_thread_flooding_after_the_answer_does_not_hold_up_the_teardown(
    launcher: Launcher, write_candidate: Callable[..., Path], floods: Floods,
    probes: HostProbes,
) -> None:
    """A sandbox that will not exit is killed when its 5 s to exit are up, however much
    it is writing, and the receipt knows how it ended."""
    chosen = _flood_launcher(launcher, probes)
    limits = dataclasses.replace(LIMITS, call_timeout=2.0, run_timeout=6.0)
    path = write_candidate(FLOOD)
    for _ in range(2):
        began = time.monotonic()
        with open_sandbox(path, contract_sha256=CONTRACT_SHA256, launcher=chosen,
                          limits=limits, guard=False) as sb:  # the OS teardown alone
            assert sb.call("g", [1]).value == 2
            marker = str(sb.staged.root)
        closed = time.monotonic() - began
        status = sb.receipts[-1].exit_status
        left = _gone(chosen, marker)
        held = closed <= TEARDOWN_SLACK and not left
        floods.setdefault(("a thread floods after the answer", launcher.name), []).append(
            f"closed after {closed:.1f} s, exit status {status}"
            + (f", left behind: {', '.join(left)}" if left else "")
            + ("" if held else " **(the teardown did not hold)**"))
        assert closed <= TEARDOWN_SLACK, closed
        assert left == []
        assert sb.receipts[-1].exit_status is not None, sb.receipts[-1]


# --------------------------------------------------------------------------- controls

ECHO = '''
def echo(text):
    print("DERIVATIVE-BREACH control:", text, flush=True)
    return "got " + text
'''


def test_control_the_taps_see_output_and_answers(
    launcher: Launcher, probes: HostProbes, write_candidate: Callable[..., Path]
) -> None:
    """The scan that finds no canary would find one: the host hands a sandboxed echo the
    canary and sees it in the frames, the captured output, and the breach marker."""
    recorder = RecordingLauncher(launcher, probes.needles)
    path = write_candidate(ECHO)
    with open_sandbox(path, contract_sha256=CONTRACT_SHA256, launcher=recorder,
                      limits=LIMITS) as sb:
        assert sb.call("echo", [probes.env_canary]).value == "got " + probes.env_canary
    assert "DERIVATIVE_CANARY" in recorder.frames.found
    assert "DERIVATIVE_CANARY" in recorder.output.found
    assert recorder.output.breach_lines, "the marker printed inside was captured"


def test_control_the_leftover_check_sees_a_running_sandbox(
    launcher: Launcher, probes: HostProbes, write_candidate: Callable[..., Path]
) -> None:
    recorder = RecordingLauncher(launcher, probes.needles)
    path = write_candidate("def f(x):\n    return x + 1\n")
    with open_sandbox(path, contract_sha256=CONTRACT_SHA256, launcher=recorder,
                      limits=LIMITS) as sb:
        assert sb.call("f", [1]).value == 2
        marker = str(sb.staged.root)
        assert recorder.namespaces and all(recorder.namespaces)
        assert leftovers(recorder.namespaces, [marker]), "the running worker is found"
    deadline = time.monotonic() + 3
    while leftovers(recorder.namespaces, [marker]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers(recorder.namespaces, [marker]) == []


def test_control_the_weaker_plain_child_is_caught(
    probes: HostProbes, tmp_path: Path
) -> None:
    """Without namespaces the same programs do reach the host, and the suite says so."""
    plain = ProcessLauncher(namespaces=False)
    by_file = {e["file"]: e for e in ENTRIES}
    net = run_program(by_file["net_connect_local.py"], plain, "permissive", probes, tmp_path)
    assert any(f"127.0.0.1:{PROBE_PORT}" in h for h in net.harm), net.harm
    assert any(i.startswith("weaker") for i in net.isolation)
    seen = run_program(by_file["write_outside_workdir.py"], plain, "permissive", probes,
                       tmp_path)
    assert any("host folder visible" in line for line in seen.breach_lines), seen.breach_lines
    for folder in (Path("/tmp/derivative-hostile"), Path("/var/tmp/derivative-hostile")):
        (folder / "escaped-write.txt").unlink(missing_ok=True)  # if run as a non-root user


# --------------------------------------------------------------------------- the table


def _outcome_cell(record: RunRecord) -> str:
    calls = len(record.calls)
    if record.outcome == "passed":
        text = f"passed ({calls} answers right)"
        if record.file in KNOWN_FORGERIES or (
                record.policy == "permissive" and record.file in NON_ENFORCING_FORGERIES):
            text = f"**FORGED PASS** (real answer x + 2; {calls} calls)"
    elif record.outcome == "guard_refused":
        text = "failed: the runtime guard refused " + (
            record.detail.split("refused ", 1)[-1].split(" (", 1)[0])
    elif record.outcome == "load_failure":
        text = "failed: did not load (" + record.detail.split(":", 1)[0] + ")"
    elif record.outcome == "wrong":
        bad = record.calls[-1]
        text = f"failed: wrong, f({bad.x}) = {bad.shown}"
        if calls > 1:
            text += f" (call {calls})"
    elif record.outcome == "timeout":
        text = f"failed: killed at the {LIMITS.call_timeout:g} s call limit"
    elif record.outcome == "crashed":
        text = "failed: worker crashed"
    elif record.outcome == "out_of_memory":
        text = f"failed: out of its {LIMITS.memory_bytes >> 20} MiB memory budget"
    elif record.outcome == "protocol_error":
        text = "failed: forged frame rejected, session tainted"
    elif record.outcome == "raised":
        text = "failed: raised " + (record.calls[-1].shown.split(":", 1)[0] if calls else "")
        if calls > 1:
            text += f" (call {calls})"
    else:
        text = f"failed: {record.outcome}"
    if record.follow_up:
        text += "; the fresh sandbox: " + record.follow_up.split(":", 1)[0]
    return f"{text}; {record.total_wall:.1f} s"


def _policy_cell(default: RunRecord) -> str:
    if not default.accepted:
        shown = ", ".join(f"{s} L{line}" for s, line in default.findings[:3])
        more = len(default.findings) - 3
        return "refused: " + shown + (f" (+{more})" if more > 0 else "")
    return "accepted (no finding)"


def _held_cell(entry: dict[str, Any], runs: list[RunRecord]) -> str:
    problems = [h for r in runs for h in r.harm + r.leaks + r.breach_lines]
    if problems:
        return "**VIOLATED**: " + "; ".join(problems)[:300]
    facts = {
        "network": f"listener on 127.0.0.1:{PROBE_PORT}: 0 connections",
        "filesystem": "probe folders, SENTINEL and candidate unchanged",
        "secret": "no canary in answers, frames, output or receipts",
        "resources": "limits held, host unharmed",
        "process": "no process left; host unharmed",
        "interpreter": "no canary reached the host",
        "code_generation": "no canary reached the host",
        "channel": "only the answer to the host's request was believed",
        "wrong_answer": "the host-side judge failed it",
    }
    text = facts.get(entry["category"], "host unharmed")
    if entry["file"] in KNOWN_FORGERIES:
        text = ("host unharmed; **the forgery was believed**" if any(r.passed for r in runs)
                else "host unharmed; the worker's pins held: the wrong answer crossed as it is")
    output = max(r.output_bytes for r in runs)
    if output:
        text += f"; output seen by the host: up to {output:,} B"
    return text + "; every host check held"


def _summary(records: dict[tuple[str, str, str], RunRecord]) -> str:
    """The counts the issue asks for: programs x backends x policies, what ran, and every
    pass of a program whose own answer is wrong (a forged pass)."""
    programs = {r.file for r in records.values()}
    by_file = {e["file"]: e for e in ENTRIES}

    def forged(policy: str) -> list[str]:
        return sorted({r.file for r in records.values() if r.policy == policy and r.passed
                       and wrong_by_design(by_file[r.file])
                       and "passed" not in DEVIATIONS.get((r.file, r.backend), ((),))[0]})

    ran = sum(1 for r in records.values() if r.ran)
    default, permissive = forged("default"), forged("permissive")
    return (f"{len(programs)} programs x {len(BACKENDS)} backends x {len(POLICIES)} policies "
            f"= {len(records)} combinations, {ran} of them ran (the rest were refused by the "
            f"default policy before anything ran); forged passes under `default`: "
            f"{len(default)}" + (f" ({', '.join(default)})" if default else "")
            + f"; under `permissive` (non-enforcing): {len(permissive)}"
            + (f" ({', '.join(permissive)})" if permissive else ""))


def render_table(records: dict[tuple[str, str, str], RunRecord], floods: Floods,
                 seconds: float) -> str:
    """``docs/hostile-suite.md`` from the records of one complete run."""
    docker_ids = {r.receipts[0]["image_id"] for r in records.values()
                  if r.backend == "docker" and r.receipts}
    lines = [
        "# The hostile suite",
        "",
        "Generated by `DERIVATIVE_WRITE_HOSTILE_TABLE=1 python -m pytest "
        "tests/integration/test_hostile_suite.py`; do not edit by hand.",
        "",
        f"- run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{seconds:.0f} s for {len(records)} combinations; Python "
        f"{platform.python_version()}, Linux {platform.release()}, "
        f"Docker image {', '.join(sorted(i for i in docker_ids if i)) or '-'}",
        f"- limits: {LIMITS.call_timeout:g} s per call, {LIMITS.run_timeout:g} s per run, "
        f"{LIMITS.memory_bytes >> 20} MiB memory, {LIMITS.pids} processes, "
        f"{LIMITS.file_bytes >> 20} MiB per file, {LIMITS.tmp_bytes >> 20} MiB /tmp",
        f"- inputs: f(x) must equal x + 1 for x in {', '.join(map(str, HANDFUL))}, then "
        "0, 1, 2, ... up to 120 calls while the run is young; the first failure ends it "
        "(after a timeout or a crash one more call shows that a fresh sandbox serves it)",
        "- every program runs on both backends under both policies: `default` (the static "
        "posture refuses, the runtime guard is installed: a refused program never runs) and "
        "`permissive` (non-enforcing: the posture only reports, no guard, so the OS "
        "boundary and the judge/runner split hold alone; such evidence is never verified)",
        f"- {_summary(records)}",
        "- every run also checks: probe folders and SENTINEL byte for byte unchanged, the "
        "repository file and the given copy unchanged, 0 connections to the listener, no "
        "process left (by PID namespace and staged folder), no container left, no canary "
        "and no DERIVATIVE-BREACH marker in answers, frames, receipts or captured output, "
        "wall time within the run limit",
        "",
        "| program | act | default policy | process, default | docker, default | "
        "process, permissive | docker, permissive | what held |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    notes: list[str] = []
    for entry in ENTRIES:
        name = entry["file"]
        default = records[(name, "process", "default")]
        cells = []
        for policy in ("default", "permissive"):
            for backend in BACKENDS:
                run = records[(name, backend, policy)]
                cells.append(_outcome_cell(run) if run.ran else "refused, not run")
        for backend in BACKENDS:
            perm = records[(name, backend, "permissive")]
            deviation = DEVIATIONS.get((name, backend))
            if deviation and perm.outcome in deviation[0] and (
                perm.outcome not in OUTCOMES[entry["outcome_if_contained"]]
            ):
                notes.append(f"- `{name}` on {backend}: {perm.outcome} where the manifest "
                             f"expects {entry['outcome_if_contained']}: {deviation[1]}.")
        runs = [records[(name, b, p)] for b in BACKENDS for p in POLICIES
                if records[(name, b, p)].ran]
        act = entry["act"].replace("|", "\\|")
        lines.append(f"| `{name}` | {act} | {_policy_cell(default)} | "
                     + " | ".join(cells) + f" | {_held_cell(entry, runs)} |")
    lines += ["", "## Output floods at the time limit", "",
              "`test_a_call_flooding_its_output_is_killed_at_its_limit` and "
              "`test_a_thread_flooding_after_the_answer_does_not_hold_up_the_teardown`: a "
              "candidate prints 64 KiB lines for up to 20 s, during the call (limit 2 s) or "
              f"from a thread after answering (the sandbox has 5 s to exit); two rounds each "
              f"(the Docker client's time-out lowered to 15 s so that a hung engine call is "
              f"short). Limits: answered within 5 s, closed within {TEARDOWN_SLACK:g} s.", ""]
    for (case, backend), rounds in sorted(floods.items()):
        lines.append(f"- {case}, {backend}: " + "; ".join(rounds))
    if not floods:
        lines.append("- (not run)")
    lines += ["", "## Where the outcome differs from the manifest", ""]
    lines += notes or ["- none"]
    forged = sorted({r.file for r in records.values()
                     if r.file in KNOWN_FORGERIES and r.passed})
    lines += ["", "## Known runtime gap", ""]
    if forged:
        lines.append(
            "- " + ", ".join(f"`{f}`" for f in forged) + ": under `permissive` the wrong "
            "answer x + 2 reached the host as x + 1 and the run passed. The candidate shares "
            "the worker's interpreter and rebinds what the worker encodes with; the manifest "
            "promises no runtime guarantee here and the `default` policy refuses both "
            "statically. The test records these as expected failures (xfail)."
        )
    else:
        lines.append("- none: the worker resisted every rebinding of its own code")
    relayed = sorted({r.file for r in records.values()
                      if r.file in NON_ENFORCING_FORGERIES and r.passed})
    for name in relayed:
        lines.append(f"- `{name}`: FORGED PASS under `permissive` only: "
                     f"{NON_ENFORCING_FORGERIES[name]}.")
    return "\n".join(lines) + "\n"
