"""Machinery of the hostile suite (``test_hostile_suite.py``): probes, recording, judging.

The suite runs every program of ``tests/hostile/`` inside a real sandbox and checks, from
the host, that the boundary held.  Everything the host can observe is gathered here into a
``RunRecord`` (facts, no assertions); the test module turns the facts into assertions and,
on request, into the table of ``docs/hostile-suite.md``.

Why it is built this way:

- **The judge lives on the host.**  ``f(x)`` must equal ``x + 1``; the judge compares what
  the sandbox returned with that, so a forged or wrong answer can only make a run fail.  A
  pass needs every answer right, an untainted session and every sandbox start ended
  cleanly: a timeout, a crash or a protocol error is a failure, never a pass.
- **Probes are real.**  A TCP listener on the probe port counts connections; the probe
  folders hold a ``SENTINEL`` and 0600 canary files and are compared byte for byte before
  and after each run; a canary sits in this process's environment and in a 0600 file named
  by ``DERIVATIVE_CANARY_FILE``; and every byte the host receives from the sandbox (frames,
  the candidate's captured stdout and stderr, answers, receipts) is scanned for the canaries
  and the ``DERIVATIVE-BREACH`` marker.
- **Recording does not change what is tested.**  ``RecordingLauncher`` wraps the real
  backend: it only taps the transcript, the captured output and the identity of the
  sandboxed processes (their PID namespace), so that leftovers can be looked for after the
  run.  The sandbox, its limits and its verdicts are the real ones.
- **Safety if isolation failed.**  The programs are bounded by design; on top of that each
  runs from a private copy (the repository file is hashed before and after), the sandbox
  stages its own copy, and the limits below are small.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from derivative.forge.posture._validate import validate_path
from derivative.forge.sandbox._channel import ChannelError, Opaque, Transcript
from derivative.forge.sandbox._receipts import candidate_digest
from derivative.forge.sandbox._sandbox import (
    CallResult,
    Launcher,
    Limits,
    Running,
    Sandbox,
    Staged,
    open_sandbox,
)

HOSTILE_DIR = Path(__file__).resolve().parents[1] / "hostile"
MANIFEST: dict[str, Any] = json.loads((HOSTILE_DIR / "manifest.json").read_text("utf-8"))
CONVENTIONS: dict[str, Any] = MANIFEST["conventions"]
ENTRIES: list[dict[str, Any]] = MANIFEST["candidates"]

PROBE_PORT = int(CONVENTIONS["probe_port"])
PROBE_DIRS = tuple(Path(p) for p in CONVENTIONS["probe_dirs"])
SENTINEL = Path(CONVENTIONS["sentinel"])
CANARY_FILES = tuple(Path(p) for p in CONVENTIONS["canary_files"])
BREACH = b"DERIVATIVE-BREACH"
SANDBOX_UID = 65534

CONTRACT_SHA256 = hashlib.sha256(b"derivative hostile suite: f(x: int) -> int == x + 1").hexdigest()

LIMITS = Limits(
    call_timeout=3.0,
    run_timeout=12.0,
    start_timeout=10.0,
    memory_bytes=512 << 20,
    pids=32,
    cpus=1.0,
    cpu_seconds=15,
    file_bytes=8 << 20,
    open_files=128,
    tmp_bytes=8 << 20,
    max_restarts=2,
)
"""Short limits so that the whole suite fits a CI job: a per-call limit of 3 s (the fork
bomb's children sleep 2 s) and a whole run of 12 s (four fork-bomb calls fit)."""

HANDFUL: tuple[int, ...] = (0, -3, 2**53 + 1, 48879)
"""Always asked, in this order: zero, a negative, a value beyond 2**53 (and 2**31 - 1) and
0xBEEF.  The wrong programs are wrong on exactly such inputs: a suite that knows where to
look finds them, which is the point of solver-chosen boundary inputs, not of luck."""

BURST = 120
"""Calls in total when the budget allows (a program wrong only after 100 calls)."""

BURST_SECONDS = 4.0
"""No call beyond the handful starts after this long: slow programs (the fork bomb's
children sleep 2 s) are judged on the handful instead of eating the whole run budget."""

TEARDOWN_SLACK = 5.0 + 3.0
"""A closed sandbox gets 5 s to exit before it is killed (``Sandbox._stop``), plus slack."""


def expected(x: int) -> int:
    return x + 1


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- scanning


class Scanner:
    """Looks for secrets and the breach marker in a stream of bytes, across chunk edges."""

    def __init__(self, needles: dict[str, bytes]) -> None:
        self.needles = needles
        self.found: dict[str, int] = {}
        self.total = 0
        self.breach_lines: list[str] = []
        self._carry = b""
        self._keep = max(len(n) for n in needles.values()) + 200

    def feed(self, data: bytes) -> None:
        if not data:
            return
        self.total += len(data)
        window = self._carry + data
        for name, needle in self.needles.items():
            if needle in window:
                self.found[name] = self.found.get(name, 0) + 1
        if BREACH in window and len(self.breach_lines) < 5:
            at = window.index(BREACH)
            line = window[at : at + 200].split(b"\n", 1)[0]
            text = line.decode("utf-8", "replace")
            if text not in self.breach_lines:
                self.breach_lines.append(text)
        self._carry = window[-self._keep :]


class _Tap(bytearray):
    """A ``bytearray`` that also feeds what is appended to a scanner (Docker's stderr)."""

    scanner: Scanner | None = None

    def extend(self, data: Any) -> None:
        if self.scanner is not None:
            self.scanner.feed(bytes(data))
        super().extend(data)


# --------------------------------------------------------------------------- host probes


@dataclass
class Listener:
    """A TCP listener on the probe port; every accepted connection is counted."""

    sock: socket.socket
    connections: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    @classmethod
    def start(cls, port: int) -> Listener:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
        sock.settimeout(0.1)
        listener = cls(sock)
        listener._thread = threading.Thread(target=listener._serve, daemon=True)
        listener._thread.start()
        return listener

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, peer = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections.append(f"{peer[0]}:{peer[1]}")
            conn.close()

    def count(self) -> int:
        return len(self.connections)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self.sock.close()


def _tree_state(folder: Path) -> dict[str, str]:
    """Every entry under ``folder``: kind, mode and (for files) the SHA-256 of the bytes."""
    state: dict[str, str] = {}
    if not folder.exists():
        return {".": "absent"}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        rel = path.relative_to(folder).as_posix()
        if stat.S_ISREG(info.st_mode):
            state[rel] = f"file {oct(info.st_mode)} {sha256_file(path)}"
        else:
            state[rel] = f"other {oct(info.st_mode)}"
    return state


@dataclass
class HostProbes:
    """What the host plants before the suite and checks after every run."""

    listener: Listener
    env_canary: str
    file_canary: str
    private_canary: str
    private_canary_path: Path
    created_dirs: list[Path]
    cleanup_dirs: list[Path]

    @property
    def needles(self) -> dict[str, bytes]:
        return {
            "DERIVATIVE_CANARY": self.env_canary.encode(),
            "canary file": self.file_canary.encode(),
            "DERIVATIVE_CANARY_FILE": self.private_canary.encode(),
        }

    def state(self) -> dict[str, dict[str, str]]:
        return {str(d): _tree_state(d) for d in PROBE_DIRS}

    def scan_text(self, text: str) -> list[str]:
        """The names of the secrets that occur in ``text``."""
        data = text.encode("utf-8", "replace")
        return [name for name, needle in self.needles.items() if needle in data]


@contextlib.contextmanager
def host_probes() -> Iterator[HostProbes]:
    """Plant the probe folders, the canaries and the listener; remove them afterwards.

    The canaries go into this process's own environment (``DERIVATIVE_CANARY``,
    ``DERIVATIVE_CANARY_FILE``): the sandbox must not pass them on.
    """
    env_canary = "env-canary-" + secrets.token_hex(16)
    file_canary = "file-canary-" + secrets.token_hex(16)
    private_canary = "private-canary-" + secrets.token_hex(16)
    created: list[Path] = []
    for folder in PROBE_DIRS:
        if not folder.exists():
            folder.mkdir(mode=0o755, parents=True)
            created.append(folder)
        os.chmod(folder, 0o755)  # writable by root only: a sandbox id cannot add to it
    SENTINEL.write_text("host sentinel\n", encoding="utf-8")
    os.chmod(SENTINEL, 0o644)
    for path in CANARY_FILES:
        path.write_text(file_canary + "\n", encoding="utf-8")
        os.chmod(path, 0o600)
    private_dir = Path(tempfile.mkdtemp(prefix="derivative-canary-"))
    private_path = private_dir / "secret"
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(private_canary + "\n")
    saved = {k: os.environ.get(k) for k in
             ("DERIVATIVE_CANARY", "DERIVATIVE_CANARY_FILE", "DERIVATIVE_PROBE_PORT")}
    os.environ["DERIVATIVE_CANARY"] = env_canary
    os.environ["DERIVATIVE_CANARY_FILE"] = str(private_path)
    os.environ["DERIVATIVE_PROBE_PORT"] = str(PROBE_PORT)
    listener = Listener.start(PROBE_PORT)
    try:
        yield HostProbes(listener, env_canary, file_canary, private_canary, private_path,
                         created, [private_dir])
    finally:
        listener.close()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        for folder in PROBE_DIRS:
            if folder in created:
                shutil.rmtree(folder, ignore_errors=True)
            else:
                for path in (SENTINEL, *CANARY_FILES):
                    if path.parent == folder:
                        path.unlink(missing_ok=True)
        shutil.rmtree(private_dir, ignore_errors=True)


# --------------------------------------------------------------------------- processes


def _ns_of(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _uid_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def leftovers(namespaces: Sequence[str], markers: Sequence[str]) -> list[str]:
    """Host processes still in one of the sandbox's PID namespaces, or whose command line
    names a sandbox's staged folder (described with their uid and command line)."""
    found: list[str] = []
    own = _ns_of(os.getpid())
    wanted = {ns for ns in namespaces if ns and ns != own}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        cmd = _cmdline(pid)
        hit = _ns_of(pid) in wanted or any(m.encode() in cmd for m in markers if m)
        if hit:
            shown = cmd.replace(b"\0", b" ").decode("utf-8", "replace")[:120]
            found.append(f"pid {pid} uid {_uid_of(pid)}: {shown}")
    return found


def wait_no_leftovers(namespaces: Sequence[str], markers: Sequence[str],
                      grace: float = 3.0) -> list[str]:
    """``leftovers`` after at most ``grace`` seconds for the kernel to reap the dead."""
    deadline = time.monotonic() + grace
    while True:
        found = leftovers(namespaces, markers)
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


# --------------------------------------------------------------------------- recording


class RecordedRunning(Running):
    """The real running sandbox, with its output captured in full as it ends."""

    def __init__(self, inner: Running, launcher: RecordingLauncher) -> None:
        self.inner = inner
        self.launcher = launcher
        self.channel = inner.channel
        self.isolation = inner.isolation
        self.image_id = inner.image_id
        self.started_monotonic = inner.started_monotonic
        self.exit_status: int | None = None
        self._log_fd: int | None = None
        log = getattr(inner, "log", None)
        if log is not None:  # process backend: the worker's stdout and stderr file
            self._log_fd = os.dup(log.fileno())
        transport = getattr(inner, "transport", None)
        tail = getattr(transport, "stderr_tail", None)
        if isinstance(tail, bytearray):  # Docker: the demultiplexed stderr stream
            tap = _Tap(tail)
            launcher.output.feed(bytes(tail))
            tap.scanner = launcher.output
            transport.stderr_tail = tap  # type: ignore[union-attr]
        launcher.namespaces.append(self._pid_namespace())

    def _pid_namespace(self) -> str:
        pid: int | None = getattr(self.inner, "inner_pid", None)
        proc = getattr(self.inner, "proc", None)
        if pid is None and proc is not None:
            pid = int(proc.pid)
        cid = getattr(self.inner, "cid", None)
        client = getattr(self.inner, "client", None)
        if pid is None and cid is not None and client is not None:
            self.launcher.containers.append(str(cid))
            with contextlib.suppress(Exception):
                pid = int(client.api.inspect_container(cid)["State"]["Pid"])
        return (_ns_of(pid) or "") if pid else ""

    def kill(self) -> None:
        self.inner.kill()

    def _drain_docker(self) -> None:
        """Read what the container still sends once its input is closed (at most 1 s)."""
        transport = getattr(self.inner, "transport", None)
        if transport is None or not hasattr(transport, "close_input"):
            return
        transport.close_input()
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                chunk = transport.read_some(65536, deadline)
            except (ChannelError, OSError):
                return
            if not chunk:
                return
            self.launcher.output.feed(chunk)  # stdout after the last answer: never read

    def finish(self, timeout: float) -> int | None:
        self._drain_docker()
        status = self.inner.finish(timeout)
        self.exit_status = status
        self.launcher.exit_statuses.append(status)
        if self._log_fd is not None:
            offset = 0
            while True:
                chunk = os.pread(self._log_fd, 1 << 20, offset)
                if not chunk:
                    break
                self.launcher.output.feed(chunk)
                offset += len(chunk)
            os.close(self._log_fd)
            self._log_fd = None
        return status

    def diagnostics(self) -> str:
        return self.inner.diagnostics()

    def oom_kills(self) -> int | None:
        return self.inner.oom_kills()


class RecordingLauncher(Launcher):
    """A backend wrapper: the real launcher, plus taps on everything the host receives."""

    def __init__(self, inner: Launcher, needles: dict[str, bytes]) -> None:
        self.inner = inner
        self.name = inner.name
        self.frames = Scanner(needles)
        self.output = Scanner(needles)
        self.namespaces: list[str] = []
        self.containers: list[str] = []
        self.exit_statuses: list[int | None] = []
        self.start_times: list[float] = []

    def launch(self, staged: Staged, limits: Limits, transcript: Transcript,
               deadline: float) -> Running:
        original = transcript.add
        frames = self.frames

        def add(direction: bytes, data: bytes) -> None:
            if direction != b">":  # what came from the sandbox
                frames.feed(data)
            original(direction, data)

        setattr(transcript, "add", add)  # noqa: B010 - an instance-level tap
        started = time.monotonic()
        running = self.inner.launch(staged, limits, transcript, deadline)
        self.start_times.append(time.monotonic() - started)
        return RecordedRunning(running, self)


# --------------------------------------------------------------------------- one run


@dataclass
class CallRecord:
    x: int
    status: str
    shown: str
    correct: bool
    elapsed: float
    full: str = ""
    """Everything the host learnt from the call (value, exception, detail), for scanning."""


@dataclass
class RunRecord:
    """Everything the host observed of one program on one backend under one policy."""

    file: str
    backend: str
    policy: str
    accepted: bool
    findings: list[tuple[str, int]]
    ran: bool = False
    outcome: str = "refused"
    """refused | passed | wrong | raised | error | timeout | crashed | out_of_memory |
    protocol_error | stale_instance | load_failure"""
    detail: str = ""
    calls: list[CallRecord] = field(default_factory=list)
    follow_up: str = ""
    tainted: bool = False
    restarts: int = 0
    receipts: list[dict[str, Any]] = field(default_factory=list)
    isolation: tuple[str, ...] = ()
    start_seconds: list[float] = field(default_factory=list)
    run_wall: float = 0.0
    total_wall: float = 0.0
    output_bytes: int = 0
    breach_lines: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    harm: list[str] = field(default_factory=list)
    exit_statuses: list[int | None] = field(default_factory=list)
    namespaces: list[str] = field(default_factory=list)
    """The PID namespaces of the sandbox starts (what the leftover check looks in)."""
    texts: list[str] = field(default_factory=list)
    """Full texts of the load and follow-up results, for the leak scan."""

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"


def _show(result: CallResult) -> str:
    if result.status == "returned":
        value = result.value
        if isinstance(value, Opaque):
            return f"<{value.type_name}>"
        return repr(value)[:80]
    if result.exc is not None:
        return f"{result.exc.name}: {result.exc.message[:80]}"
    return result.detail[:120]


def _full(result: CallResult) -> str:
    exc = result.exc
    parts = [repr(result.value), result.detail]
    if exc is not None:
        parts += [*exc.classes, exc.message]
    return "\n".join(parts)


def _is_right(result: CallResult, x: int) -> bool:
    return result.status == "returned" and type(result.value) is int and (
        result.value == expected(x))


def _plan() -> Iterator[int]:
    yield from HANDFUL
    n = 0
    while True:
        if n not in HANDFUL:
            yield n
        n += 1


def judge(sb: Sandbox, record: RunRecord, limits: Limits) -> None:
    """Ask the plan's inputs until the first failure; the verdict goes into ``record``.

    The handful is always asked; more calls follow (up to ``BURST``) while the run's
    budget can still fit one call at the per-call limit.  After a timeout or a crash one
    more call shows that a fresh sandbox serves it (the boundary of the killed programs).
    """
    load = sb.start()
    record.isolation = tuple(sb.isolation)
    if not load.ok:
        record.outcome = "guard_refused" if load.status == "guard_refused" else "load_failure"
        record.detail = f"{load.status}: {_show(load)}"
        record.texts.append(_full(load))
        return
    started = time.monotonic()
    for x in _plan():
        if len(record.calls) >= BURST:
            break
        if len(record.calls) >= len(HANDFUL):
            spent = time.monotonic() - started
            if spent > BURST_SECONDS or limits.run_timeout - spent < limits.call_timeout + 1:
                break
        result = sb.call("f", [x])
        right = _is_right(result, x)
        record.calls.append(
            CallRecord(x, result.status, _show(result), right, result.elapsed, _full(result))
        )
        if right:
            continue
        record.outcome = "wrong" if result.status == "returned" else result.status
        record.detail = f"f({x}) -> {result.status}: {_show(result)}"
        if result.status in ("timeout", "crashed", "out_of_memory"):
            again = sb.call("f", [x])
            record.follow_up = f"{again.status}: {_show(again)}"
            record.texts.append(_full(again))
        return
    record.outcome = "passed"
    record.detail = f"{len(record.calls)} answers right"


def run_program(entry: dict[str, Any], backend: Launcher, policy: str,
                probes: HostProbes, scratch: Path) -> RunRecord:
    """Validate, then (if accepted) run one hostile program; gather what the host saw."""
    source = HOSTILE_DIR / entry["file"]
    repo_hash = sha256_file(source)
    copy_dir = scratch / f"{backend.name}-{policy}-{entry['file'][:-3]}"
    copy_dir.mkdir()
    copy = copy_dir / entry["file"]
    shutil.copyfile(source, copy)
    verdict = validate_path(copy, policy)
    record = RunRecord(entry["file"], backend.name, policy, verdict.accepted,
                       [(f.strategy, f.line) for f in verdict.findings])
    if not verdict.accepted:
        return record
    record.ran = True
    before = probes.state()
    connections = probes.listener.count()
    recorder = RecordingLauncher(backend, probes.needles)
    began = time.monotonic()
    sb = open_sandbox(copy, contract_sha256=CONTRACT_SHA256, launcher=recorder,
                      limits=LIMITS, guard=verdict.enforced)
    staged_root = str(sb.staged.root)
    # A Docker worker's command line names no host folder, but it names the module.
    module_mark = f"{sb.staged.inside}\0{sb.staged.module}\0"
    try:
        judge(sb, record, LIMITS)
        record.run_wall = time.monotonic() - began
        record.tainted = sb.tainted
        record.restarts = sb.restarts
        if candidate_digest(sb.staged.candidate_dir) != sb.staged.digest:
            record.harm.append("the staged candidate changed during the run")
        work = sb.staged.root / "work"
        if work.exists() and any(work.iterdir()):
            record.harm.append(f"files left in the work dir: {sorted(os.listdir(work))}")
    finally:
        receipts = sb.close()
    record.total_wall = time.monotonic() - began
    record.receipts = [json.loads(r.model_dump_json()) for r in receipts]
    record.start_seconds = recorder.start_times
    record.exit_statuses = recorder.exit_statuses
    record.namespaces = list(recorder.namespaces)
    _host_checks(record, probes, recorder, before, connections, [staged_root, module_mark],
                 copy, repo_hash, source, sb.staged.digest)
    return record


def _host_checks(record: RunRecord, probes: HostProbes, recorder: RecordingLauncher,
                 before: dict[str, dict[str, str]], connections: int, markers: list[str],
                 copy: Path, repo_hash: str, source: Path, digest: str) -> None:
    """Everything that must hold on the host after a run, as facts in ``record``."""
    after = probes.state()
    if after != before:
        for folder in before:
            changed = sorted(
                k for k in set(before[folder]) | set(after[folder])
                if before[folder].get(k) != after[folder].get(k)
            )
            if changed:
                record.harm.append(f"{folder} changed: {changed}")
    if probes.listener.count() != connections:
        record.harm.append(
            f"the listener on 127.0.0.1:{PROBE_PORT} received "
            f"{probes.listener.count() - connections} connection(s)"
        )
    if sha256_file(copy) != repo_hash:
        record.harm.append("the copy the sandbox was given changed")
    if sha256_file(source) != repo_hash:
        record.harm.append("the repository's candidate file changed")
    staged_root = markers[0]
    if Path(staged_root).exists():
        record.harm.append("the staged folder was not removed")
    if Path("derivative-fill.bin").exists():
        record.harm.append("derivative-fill.bin appeared in the host's working directory")
    left = wait_no_leftovers(recorder.namespaces, markers)
    if left:
        record.harm.append(f"processes left after the run: {left}")
    client = getattr(recorder.inner, "client", None)
    for cid in recorder.containers:
        with contextlib.suppress(Exception):
            assert client is not None
            client.api.inspect_container(cid)
            record.harm.append(f"container {cid[:12]} still exists")
    for receipt in record.receipts:
        if receipt["candidate_sha256"] != digest:
            record.harm.append("a receipt names another candidate digest")
    record.output_bytes = recorder.output.total
    record.breach_lines = recorder.output.breach_lines + recorder.frames.breach_lines
    leaks = {f"{name} in output" for name in recorder.output.found}
    leaks |= {f"{name} in frames" for name in recorder.frames.found}
    texts = [c.full for c in record.calls] + [record.detail, record.follow_up, *record.texts]
    leaks |= {f"{name} in answers" for t in texts for name in probes.scan_text(t)}
    leaks |= {f"{name} in receipts" for name in probes.scan_text(json.dumps(record.receipts))}
    record.leaks = sorted(leaks)
