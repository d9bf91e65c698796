"""Sandboxes: one interface over the process and Docker backends, and ``auto`` selection.

A ``Sandbox`` is one candidate under test.  It stages the candidate (a private copy whose
digest goes into every receipt), starts a worker through a backend, and then answers
``call``, ``new_instance`` and ``method`` one at a time.  The rules it enforces
(docs/build.md):

- every call has a time limit; a call that exceeds it kills the sandbox, counts as failed
  (status ``timeout``) and the next call starts a fresh sandbox (and re-imports the
  candidate); instances made by the old one become stale;
- the sandbox has one memory budget for all its processes (``Limits.memory_bytes``); when
  the kernel killed a process of it for exceeding the budget (the backend's ``oom_kills``
  counter grew), the request fails as ``out_of_memory`` whatever came back, and the
  sandbox is replaced like after a timeout: a verdict about the candidate, never a crash
  of the sandbox;
- the whole run has a time limit too; past it, nothing more is started;
- every frame is checked (``forge/sandbox/_channel.py``); a malformed, oversize or unrequested frame
  makes that call a ``protocol_error``, kills the sandbox and marks the session ``tainted``:
  a tainted run must be judged a failure, never a pass;
- each sandbox start ends in a ``RunReceipt`` written here, on the host;
- ``explore`` runs the deterministic interleaving explorer inside the sandbox (the worker
  loads the staged copy of ``forge/inside/_explore.py``) and returns its runs in batches; its
  request deadline is the exploration's own budget plus the call time limit, and every
  answer is validated against the request before anything of it is believed.

``open_sandbox(kind, ...)`` chooses the backend: ``docker`` (an engine and the image must be
there, else ``SandboxUnavailable``; never a silent fallback), ``process``, or ``auto``
(Docker when an engine and the image are present, else the process backend; the evidence
records which one ran).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from derivative._errors import SandboxUnavailable, UsageError

from ..inside import EXPLORER_SOURCE, WORKER_SOURCE
from ._channel import (
    ChannelClosed,
    ChannelError,
    ChannelTimeout,
    ExploreBatch,
    FrameChannel,
    GuardRefusal,
    InstanceRef,
    ProtocolError,
    RaisedError,
    Transcript,
    encode_args,
    encode_explore_args,
    parse_explore_batch,
)
from ._receipts import Ending, RunReceipt, candidate_digest, new_run_id, utc_now

BackendName = Literal["auto", "docker", "process"]
CallStatus = Literal[
    "returned", "raised", "error", "timeout", "crashed", "out_of_memory", "protocol_error",
    "stale_instance", "guard_refused",
]

EXPLORER_NAME = "explorer.py"
"""The explorer's name beside ``worker.py`` (``_worker.EXPLORER_FILE``): outside the
candidate's folder, so no candidate file can take its place."""
MAX_EXPLORE_CALLS = 16
MAX_EXPLORE_SETUP = 16
MAX_CANDIDATE_BYTES = 64 << 20
MAX_CANDIDATE_FILES = 10_000
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache"})


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox; the defaults suit unit-sized pure functions."""

    call_timeout: float = 10.0
    """Wall-clock seconds for one call (import included for ``load``)."""
    run_timeout: float = 900.0
    """Wall-clock seconds for the whole session, restarts included."""
    start_timeout: float = 60.0
    """Seconds to start a sandbox and finish its set-up."""
    memory_bytes: int = 1 << 30
    """Memory of the whole sandbox, every process together, swap included: a memory cgroup
    (process backend; each process's address space is capped at the same figure, and
    without a memory controller fewer processes share it as rlimits) / the container's
    memory (Docker)."""
    pids: int = 64
    """Processes and threads (cgroup pids controller, RLIMIT_NPROC, Docker pids_limit)."""
    cpus: float = 1.0
    """CPU share for Docker (nano_cpus)."""
    cpu_seconds: int = 900
    """CPU time per process (RLIMIT_CPU)."""
    file_bytes: int = 16 << 20
    """Largest file the candidate may write (RLIMIT_FSIZE)."""
    open_files: int = 256
    """Open file descriptors (RLIMIT_NOFILE)."""
    tmp_bytes: int = 16 << 20
    """Size of the private tmpfs ``/tmp``."""
    max_restarts: int = 16
    """Fresh sandboxes a session may start after timeouts and crashes."""
    output_bytes: int = 1 << 20
    """What the candidate's ``sys.stdout`` and ``sys.stderr`` forward, together; the rest
    is dropped (and counted in the log) instead of failing the candidate's prints."""
    explore_timeout: float = 300.0
    """Seconds one interleaving exploration may take inside the sandbox: a safety net
    (the schedule limit decides how many run); the engine reports an exploration it
    stopped as an operational timeout, never as evidence."""
    explore_batch: int = 64
    """Explored schedules per answer at most (fewer when their traces are large)."""
    colocate: bool = True
    """Run the sandbox's processes on the CPU of the thread that judges, and keep that
    thread there while the session is open.  The host asks and the candidate answers in
    turn, never at once, so nothing runs in parallel anyway; but on a virtual machine
    waking a process on another, idle CPU costs 50-100 us, three times per call (host to
    runner, runner to judge, judge to host).  Measured by ``benchmarks/sandbox_overhead.py``."""


@dataclass(frozen=True)
class CallResult:
    """What became of one request.

    ``returned``: the candidate returned ``value``; ``raised``: the candidate's code raised
    ``exc``; ``error``: the worker could not make the call (no such name, an argument the
    candidate's enum lacks, a result too large: ``exc.phase`` says which); ``timeout``,
    ``crashed`` (the sandbox died), ``out_of_memory`` (the kernel killed a process of the
    sandbox for exceeding its memory budget), ``protocol_error`` (a bad frame) and
    ``stale_instance`` (the instance belonged to a sandbox that has since been replaced)
    are failures of the run, never passes.
    """

    status: CallStatus
    value: object = None
    exc: RaisedError | None = None
    detail: str = ""
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "returned"


_USERS = ("alex", "sam", "maria", "dev", "jo", "kim", "lee", "nora", "omar", "ravi", "ana",
          "build", "ci", "app", "runner")
_PROJECTS = ("billing", "pricing", "service", "app", "core", "backend", "api", "rules",
             "accounts", "orders", "tokens", "config", "payments", "inventory", "src")


def ordinary_layout(avoid: str = "") -> tuple[str, str]:
    """Where a sandbox shows the candidate and its own two files: ``(candidate folder,
    tools folder)``, drawn at random for every staging.

    A fixed place (``/sandbox/candidate``) told the candidate it was being judged; a
    checkout under ``/home/USER/PROJECT`` is what an ordinary run sees.  The draw is
    fresh per staging, so the replay run (``forge/run``) stands somewhere else.
    """
    import secrets

    while True:
        user = secrets.choice(_USERS)
        project = secrets.choice(_PROJECTS)
        suffix = secrets.choice(("", "", f"-{secrets.randbelow(90) + 10}", "/src"))
        inside = f"/home/{user}/{project}{suffix}"
        if inside != avoid:
            return inside, f"/opt/.{secrets.token_hex(6)}"


@dataclass(frozen=True)
class Staged:
    """A private copy of the candidate, laid out for the sandbox.

    ``root`` holds ``sandbox/worker.py`` and ``sandbox/explorer.py`` (the interleaving
    explorer, loaded only when asked), ``candidate/...`` (everything world-readable,
    nothing writable by the sandbox's id) and an empty ``root/`` that the process backend
    uses as the mount point of the sandbox's own root file system.  Inside the sandbox
    the candidate's folder is ``inside`` and the worker's is ``tools_inside``
    (``ordinary_layout``); only a plain child without namespaces sees the host's paths.
    """

    root: Path
    module: str
    digest: str
    files: tuple[str, ...]
    inside: str = "/home/dev/app"
    tools_inside: str = "/opt/.derivative"

    @property
    def sandbox_dir(self) -> Path:
        return self.root / "sandbox"

    @property
    def candidate_dir(self) -> Path:
        return self.root / "candidate"

    @property
    def worker(self) -> Path:
        return self.root / "sandbox" / "worker.py"

    @property
    def explorer(self) -> Path:
        return self.root / "sandbox" / EXPLORER_NAME


def _current_cpu() -> int:
    """The CPU the calling thread last ran on (``/proc/thread-self/stat``, field 39)."""
    with open("/proc/thread-self/stat", encoding="ascii") as handle:
        text = handle.read()
    return int(text[text.rindex(")") + 2:].split()[36])


def _module_name_ok(name: str) -> bool:
    return bool(name) and all(part.isidentifier() for part in name.split("."))


def stage_candidate(path: str | os.PathLike[str], module: str | None = None, *,
                    avoid: str = "") -> Staged:
    """Copy the candidate (a ``.py`` file or a folder) and the worker into a fresh folder.

    Only regular files and folders are copied (symbolic links and special files are left
    out), so the digest in the receipts names exactly what the sandbox could import.
    ``avoid`` is a candidate folder (inside) the new layout must not reuse.
    """
    source = Path(path)
    if not source.exists():
        raise UsageError(f"candidate {source} does not exist")
    if module is not None and not _module_name_ok(module):
        raise UsageError(f"--module {module!r} is not a dotted module name")
    root = Path(tempfile.mkdtemp(prefix="derivative-sandbox-"))
    try:
        os.chmod(root, 0o755)
        sandbox = root / "sandbox"
        candidate = root / "candidate"
        sandbox.mkdir()
        candidate.mkdir()
        (root / "root").mkdir()
        (root / "work").mkdir()
        os.chmod(root / "work", 0o1777)
        shutil.copyfile(WORKER_SOURCE, sandbox / "worker.py")
        shutil.copyfile(EXPLORER_SOURCE, sandbox / EXPLORER_NAME)
        if source.is_file():
            if source.suffix != ".py":
                raise UsageError(f"candidate {source} is not a .py file")
            name = module or source.stem
            if module is not None and "." in module:
                raise UsageError(f"--module {module!r}: a .py candidate is imported as one "
                                 "module, so its name has no dots")
            if not _module_name_ok(name) or "." in name:
                raise UsageError(f"candidate file name {source.name!r} is not a module name: "
                                 "give --module NAME")
            shutil.copyfile(source, candidate / f"{name}.py")
        elif (source / "__init__.py").is_file() and module is None:
            name = source.name
            if not _module_name_ok(name):
                raise UsageError(f"package folder {source.name!r} is not a module name")
            _copy_tree(source, candidate / name)
        else:
            if module is None:
                raise UsageError(
                    f"candidate folder {source} is not a package: choose the module with --module"
                )
            name = module
            _copy_tree(source, candidate)
        files = tuple(
            sorted(p.relative_to(candidate).as_posix() for p in candidate.rglob("*") if p.is_file())
        )
        for top in (sandbox, candidate):
            for dirpath, dirnames, filenames in os.walk(top):
                for d in dirnames:
                    os.chmod(os.path.join(dirpath, d), 0o755)
                for f in filenames:
                    os.chmod(os.path.join(dirpath, f), 0o644)
            os.chmod(top, 0o755)
        inside, tools = ordinary_layout(avoid)
        return Staged(root, name, candidate_digest(candidate), files, inside, tools)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _copy_tree(source: Path, target: Path) -> None:
    total = 0
    count = 0
    target.mkdir(parents=True, exist_ok=True)
    for dirpath, dirnames, filenames in os.walk(source, followlinks=False):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIPPED_DIRS and not os.path.islink(os.path.join(dirpath, d))
        )
        rel = Path(dirpath).relative_to(source)
        (target / rel).mkdir(parents=True, exist_ok=True)
        for f in sorted(filenames):
            src = Path(dirpath) / f
            if src.is_symlink() or not src.is_file():
                continue
            total += src.stat().st_size
            count += 1
            if total > MAX_CANDIDATE_BYTES or count > MAX_CANDIDATE_FILES:
                raise UsageError(
                    f"candidate {source} is larger than {MAX_CANDIDATE_BYTES >> 20} MiB "
                    f"or {MAX_CANDIDATE_FILES} files"
                )
            shutil.copyfile(src, target / rel / f)


# --------------------------------------------------------------------------- backends


class Running(ABC):
    """One started sandbox, set up and ready for ``load``."""

    channel: FrameChannel
    isolation: tuple[str, ...]
    image_id: str | None
    started_monotonic: float

    @abstractmethod
    def kill(self) -> None:
        """Stop everything in the sandbox now (idempotent)."""

    @abstractmethod
    def finish(self, timeout: float) -> int | None:
        """Close the channel, wait up to ``timeout`` for the exit, clean up; the exit status."""

    def diagnostics(self) -> str:
        """The tail of the worker's own error output, for messages (may be empty)."""
        return ""

    def pin(self, cpu: int) -> None:
        """Keep the sandbox's processes on ``cpu`` (``Limits.colocate``); best effort."""
        return None

    def oom_kills(self) -> int | None:
        """Processes of this sandbox the kernel has killed for exceeding its memory budget
        so far, read from outside; None when the backend cannot tell."""
        return None


class Launcher(ABC):
    """A backend: knows how to start a worker for a staged candidate."""

    name: Literal["process", "docker"]

    @abstractmethod
    def launch(
        self, staged: Staged, limits: Limits, transcript: Transcript, deadline: float
    ) -> Running:
        """Start and set up a sandbox; SandboxUnavailable when isolation cannot be had."""


# --------------------------------------------------------------------------- the session


@dataclass
class _Exploring:
    """The search in progress in the current sandbox (its worker holds the generator)."""

    generation: int
    setup: int
    calls: int
    batch: int
    limit: int
    ends: float
    """``time.monotonic()`` when the exploration's own budget runs out."""
    seen: int = 0


@dataclass
class _Current:
    running: Running
    run_id: str
    started_at: str
    transcript: Transcript
    calls: int = 0
    protocol_errors: int = 0
    generation: int = 0
    oom_seen: int | None = None
    """The sandbox's OOM-kill counter when last read (None: the backend cannot tell)."""


@dataclass
class Sandbox:
    """A session with one candidate: start, calls, restarts, receipts."""

    launcher: Launcher
    staged: Staged
    contract_sha256: str
    binds: Mapping[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    receipts: list[RunReceipt] = field(default_factory=list)
    load_result: CallResult | None = None
    tainted: bool = False
    restarts: int = 0
    guard: bool = True
    """Whether the runner installs the runtime guard (off only under a non-enforcing policy)."""
    refusals: list[GuardRefusal] = field(default_factory=list)
    """What the runtime guard refused; one refusal ends the session (no fresh start)."""
    coverage: bool = False
    """Whether the runner measures which of the candidate's lines and arcs run."""
    _current: _Current | None = None
    _generation: int = 0
    _next_id: int = 1
    _run_deadline: float | None = None
    _closed: bool = False
    _last_isolation: tuple[str, ...] = ()
    _last_image: str | None = None
    _exploring: _Exploring | None = None
    _host_affinity: frozenset[int] | None = None
    _cpu: int = 0

    # ------------------------------------------------------------------ properties

    @property
    def backend(self) -> str:
        return self.launcher.name

    @property
    def isolation(self) -> tuple[str, ...]:
        """Isolation features of the current (or last) sandbox start, as verified."""
        return self._current.running.isolation if self._current else self._last_isolation

    @property
    def image_id(self) -> str | None:
        return self._current.running.image_id if self._current else self._last_image

    # ------------------------------------------------------------------ life cycle

    def __enter__(self) -> Sandbox:
        try:
            self.start()
        except BaseException:
            self.close()  # the staged copy must not outlive a failed start
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def restart_clock(self) -> None:
        """Give the session its whole run time from now (a sandbox started ahead of use)."""
        self._run_deadline = time.monotonic() + self.limits.run_timeout

    def start(self) -> CallResult:
        """Start the first sandbox and import the candidate; the import's outcome."""
        if self._current is None:
            self._start()
        assert self.load_result is not None
        return self.load_result

    def _start(self) -> None:
        now = time.monotonic()
        if self._run_deadline is None:
            self._run_deadline = now + self.limits.run_timeout
        run_id = new_run_id()
        started_at = utc_now()
        transcript = Transcript()
        deadline = min(now + self.limits.start_timeout, self._run_deadline)
        try:
            running = self.launcher.launch(self.staged, self.limits, transcript, deadline)
        except SandboxUnavailable:
            self._receipt_without_run(run_id, started_at, transcript)
            raise
        if self.limits.colocate:
            running.pin(self._pin_host())
        self._generation += 1
        self._current = _Current(running, run_id, started_at, transcript,
                                 generation=self._generation, oom_seen=running.oom_kills())
        self._last_isolation = running.isolation
        self._last_image = running.image_id
        self.load_result = self._request(
            {"op": "load", "target": self.staged.module,
             "args": {"binds": dict(self.binds), "guard": self.guard,
                      "coverage": self.coverage}},
            count=False,
            decode=False,
        )

    def _receipt_without_run(self, run_id: str, started_at: str, transcript: Transcript) -> None:
        self.receipts.append(
            RunReceipt(
                run_id=run_id,
                backend=self.launcher.name,
                image_id=None,
                candidate_sha256=self.staged.digest,
                contract_sha256=self.contract_sha256,
                started_at=started_at,
                finished_at=utc_now(),
                exit_status=None,
                calls=0,
                transcript_sha256=transcript.hexdigest(),
                isolation=(),
                ended="start_failed",
            )
        )

    def _stop(self, ended: Ending) -> None:
        current = self._current
        if current is None:
            return
        self._current = None
        if ended in ("timeout", "run_timeout", "protocol_error", "out_of_memory"):
            current.running.kill()
        # A closed channel lets a healthy worker exit; a crashed one is already going.
        status = current.running.finish(timeout=5.0 if ended == "closed" else 2.0)
        self.receipts.append(
            RunReceipt(
                run_id=current.run_id,
                backend=self.launcher.name,
                image_id=current.running.image_id,
                candidate_sha256=self.staged.digest,
                contract_sha256=self.contract_sha256,
                started_at=current.started_at,
                finished_at=utc_now(),
                exit_status=status,
                calls=current.calls,
                transcript_sha256=current.transcript.hexdigest(),
                isolation=current.running.isolation,
                ended=ended,
                protocol_errors=current.protocol_errors,
                guard=self.guard,
                refusals=tuple(f"{r.event} ({r.where})" for r in self.refusals),
                layout=self.staged.inside,
            )
        )

    def close(self) -> tuple[RunReceipt, ...]:
        """End the session (closing the channel lets the worker exit); all receipts."""
        if not self._closed:
            self._closed = True
            try:
                self._stop("closed")
            finally:
                shutil.rmtree(self.staged.root, ignore_errors=True)
                self._unpin_host()
        return tuple(self.receipts)

    def _pin_host(self) -> int:
        """The CPU this thread runs on, kept for the session (``Limits.colocate``)."""
        if self._host_affinity is None:
            try:
                self._host_affinity = frozenset(os.sched_getaffinity(0))
                self._cpu = _current_cpu()
                os.sched_setaffinity(0, {self._cpu})
            except (OSError, ValueError):
                self._host_affinity = frozenset()
        return self._cpu

    def spare_cpus(self) -> frozenset[int]:
        """The judging thread's CPUs other than the one this session keeps (empty when it
        keeps none, or there is no other): where work beside the session should run."""
        if not self._host_affinity:
            return frozenset()
        return self._host_affinity - {self._cpu}

    def _unpin_host(self) -> None:
        if self._host_affinity:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, self._host_affinity)
        self._host_affinity = None

    # ------------------------------------------------------------------ requests

    def _ensure_running(self) -> CallResult | None:
        if self._closed:
            return CallResult("crashed", detail="the sandbox session is closed")
        if self.refusals:
            first = self.refusals[0]
            return CallResult("guard_refused", detail=f"the runtime guard refused "
                                                      f"{first.event} ({first.where})")
        load = self.load_result
        if load is not None and not load.ok:
            # No restart storm for a candidate that cannot even be imported.
            reason = load.detail or (load.exc.message if load.exc else load.status)
            return CallResult("error", exc=load.exc,
                              detail=f"the candidate did not load ({load.status}): {reason}")
        if self._run_deadline is not None and time.monotonic() >= self._run_deadline:
            return CallResult("timeout", detail="the run's time limit is exhausted")
        if self._current is not None:
            return None
        if self.restarts >= self.limits.max_restarts:
            return CallResult("crashed", detail="too many sandbox restarts in this run")
        self.restarts += 1
        self._start()
        load = self.load_result
        if load is None or not load.ok:
            self._stop("crashed" if self._current else "start_failed")
            reason = "" if load is None else load.detail or (load.exc.message if load.exc else "")
            return CallResult("crashed", detail=f"the candidate failed to load again: {reason}")
        return None

    def _request(
        self,
        message: dict[str, Any],
        *,
        count: bool = True,
        decode: bool = True,
        timeout: float | None = None,
    ) -> CallResult:
        """One request; ``timeout`` replaces the call time limit (an exploration's)."""
        current = self._current
        assert current is not None and self._run_deadline is not None
        rid = self._next_id
        self._next_id += 1
        if count:
            current.calls += 1
        started = time.monotonic()
        run_left = self._run_deadline - started
        limit = self.limits.call_timeout if timeout is None else timeout
        deadline = started + min(limit, max(run_left, 0.0))
        channel = current.running.channel
        try:
            if channel.unexpected_input():
                raise ProtocolError("the sandbox sent data nobody asked for")
            response = channel.request({"id": rid, **message}, deadline, decode=decode)
        except ChannelTimeout:
            if self._memory_exceeded(current):
                return self._out_of_memory(started)
            ended: Ending = "run_timeout" if deadline >= self._run_deadline else "timeout"
            self._stop(ended)
            what = "the run's time limit" if ended == "run_timeout" else "the call time limit"
            return CallResult("timeout", detail=f"killed after {what}",
                              elapsed=time.monotonic() - started)
        except ProtocolError as exc:
            current.protocol_errors += 1
            self.tainted = True
            self._stop("protocol_error")
            return CallResult("protocol_error", detail=str(exc),
                              elapsed=time.monotonic() - started)
        except (ChannelClosed, ChannelError, OSError) as exc:
            if self._memory_exceeded(current):
                return self._out_of_memory(started)
            diagnostics = current.running.diagnostics()
            self._stop("crashed")
            detail = f"the sandbox died: {exc}" + (f"\n{diagnostics}" if diagnostics else "")
            return CallResult("crashed", detail=detail, elapsed=time.monotonic() - started)
        if self._memory_exceeded(current):
            return self._out_of_memory(started)
        elapsed = time.monotonic() - started
        if response.guard is not None:
            refusal = response.guard
            self.refusals.append(refusal)
            self._stop("guard_refused")
            return CallResult("guard_refused", elapsed=elapsed,
                              detail=f"the runtime guard refused {refusal.event} "
                                     f"({refusal.where})")
        if response.ok:
            return CallResult("returned", value=response.value, elapsed=elapsed)
        exc_info = response.exc
        assert exc_info is not None
        status: CallStatus = "raised" if exc_info.phase in ("call", "load") else "error"
        return CallResult(status, exc=exc_info, detail=exc_info.message, elapsed=elapsed)

    def _memory_exceeded(self, current: _Current) -> bool:
        """Whether the kernel killed a process of the sandbox for its memory since the
        counter was last read (the read also moves the mark on)."""
        now = current.running.oom_kills()
        before, current.oom_seen = current.oom_seen, now
        return now is not None and before is not None and now > before

    def _out_of_memory(self, started: float) -> CallResult:
        """The request's outcome when the budget was exceeded: whatever answer came, part
        of the sandbox was killed under it, so the sandbox is replaced."""
        self._stop("out_of_memory")
        budget = self.limits.memory_bytes
        detail = (f"the candidate exceeded the sandbox's memory budget of {budget >> 20} MiB "
                  f"({budget} bytes, every process together): the kernel killed a process")
        return CallResult("out_of_memory", detail=detail, elapsed=time.monotonic() - started)

    def call(self, function: str, args: Sequence[object] = ()) -> CallResult:
        """Call the candidate's function bound to ``function`` with ``args``."""
        problem = self._ensure_running()
        if problem is not None:
            return problem
        return self._request({"op": "call", "target": function, "args": encode_args(args)})

    def new_instance(self, system: str) -> CallResult:
        """A fresh instance of the class bound to ``system`` (no-argument constructor).

        On success ``value`` is an ``InstanceRef`` for ``method``.
        """
        problem = self._ensure_running()
        if problem is not None:
            return problem
        result = self._request(
            {"op": "new_instance", "target": system, "args": []}, decode=False
        )
        if not result.ok:
            return result
        raw = result.value
        if (
            not isinstance(raw, dict)
            or set(raw) != {"$instance"}
            or type(raw["$instance"]) is not int
        ):
            return self._violation("new_instance did not answer with an instance handle")
        assert self._current is not None
        ref = InstanceRef(raw["$instance"], self._current.generation, system)
        return CallResult("returned", value=ref, elapsed=result.elapsed)

    def method(self, instance: InstanceRef, name: str, args: Sequence[object] = ()) -> CallResult:
        """Call operation ``name`` on an instance made by ``new_instance``."""
        if self._current is None or instance.generation != self._current.generation:
            return CallResult(
                "stale_instance",
                detail=f"{instance.system} instance {instance.handle} belonged to a sandbox "
                "that has been replaced",
            )
        problem = self._ensure_running()
        if problem is not None:
            return problem
        return self._request(
            {"op": "method", "target": name, "instance": instance.handle,
             "args": encode_args(args)}
        )

    # ------------------------------------------------------------------ exploration

    def explore(
        self,
        system: str,
        setup: Sequence[tuple[str, Sequence[object]]],
        calls: Sequence[tuple[str, Sequence[object]]],
        *,
        limit: int,
        timeout: float | None = None,
        batch: int | None = None,
    ) -> CallResult:
        """Explore interleavings of ``calls`` on fresh instances of ``system``, inside the
        sandbox; on success ``value`` is the first ``ExploreBatch``.

        Each schedule: a fresh instance, the ``setup`` calls ``(op, args)`` in order, then
        one thread per call; a ``SetupRef(i)`` argument (top level) is set-up call
        ``i``'s result.  At most ``limit`` schedules in all, for at most ``timeout``
        seconds (``Limits.explore_timeout``); ``explore_next`` brings the next batch
        while the last one said ``more``.  The request may take the exploration's
        budget plus the call time limit; past that the sandbox is killed like any call
        that overran.  Bad arguments raise ``ValueError``/``TypeError`` before anything
        is sent.
        """
        if not 1 <= len(calls) <= MAX_EXPLORE_CALLS:
            raise ValueError(f"explore needs 1 to {MAX_EXPLORE_CALLS} concurrent calls")
        if len(setup) > MAX_EXPLORE_SETUP:
            raise ValueError(f"explore takes at most {MAX_EXPLORE_SETUP} set-up calls")
        if limit < 1:
            raise ValueError("explore needs a limit of at least one schedule")
        budget = self.limits.explore_timeout if timeout is None else float(timeout)
        if not 0 < budget <= 3600:
            raise ValueError("the exploration's timeout must be in (0, 3600] seconds")
        size = min(max(int(batch or self.limits.explore_batch), 1), 500)
        args = {
            "setup": [[op, encode_explore_args(a, i)] for i, (op, a) in enumerate(setup)],
            "calls": [[op, encode_explore_args(a, len(setup))] for op, a in calls],
            "limit": int(limit),
            "timeout": budget,
            "batch": size,
        }
        self._exploring = None
        problem = self._ensure_running()
        if problem is not None:
            return problem
        assert self._current is not None
        exploring = _Exploring(self._current.generation, len(setup), len(calls), size,
                               int(limit), time.monotonic() + budget)
        result = self._request({"op": "explore", "target": system, "args": args},
                               decode=False, timeout=budget + self.limits.call_timeout)
        return self._explore_answer(result, exploring)

    def explore_next(self) -> CallResult:
        """The next batch of the exploration in progress (after one that said ``more``)."""
        exploring = self._exploring
        if exploring is None:
            return CallResult("error", detail="no exploration in progress")
        self._exploring = None
        if self._current is None or self._current.generation != exploring.generation:
            return CallResult("stale_instance",
                              detail="the exploration belonged to a sandbox that has been "
                              "replaced")
        problem = self._ensure_running()
        if problem is not None:
            return problem
        left = max(exploring.ends - time.monotonic(), 0.0)
        result = self._request({"op": "explore_next"}, decode=False,
                               timeout=left + self.limits.call_timeout)
        return self._explore_answer(result, exploring)

    def explore_close(self) -> None:
        """Discard the exploration in progress (its threads in the worker end)."""
        exploring, self._exploring = self._exploring, None
        current = self._current
        if exploring is None or current is None or current.generation != exploring.generation:
            return
        result = self._request({"op": "explore_close"}, count=False, decode=False)
        if result.ok and not (
            isinstance(result.value, dict)
            and set(result.value) == {"closed"}
            and type(result.value["closed"]) is bool
        ):
            self._violation("explore_close was not answered as asked")

    def coverage_data(self) -> CallResult:
        """What the running sandbox measured of the candidate's lines and arcs since the
        last ask (``value``: the worker's raw answer, which only the caller can check: the
        sandbox does not read the candidate's source).  Never starts a sandbox: after a
        restart what the dead one measured since the last ask is lost (``crashed``)."""
        if not self.coverage or self._current is None or self._closed or self.refusals:
            return CallResult("crashed", detail="no running sandbox measures coverage")
        return self._request({"op": "coverage"}, count=False, decode=False)

    def reject(self, reason: str) -> CallResult:
        """The caller found an answer forged (coverage that is not the candidate's): the
        session is tainted and the sandbox stopped, as for a malformed frame."""
        return self._violation(reason)

    def _explore_answer(self, result: CallResult, exploring: _Exploring) -> CallResult:
        if not result.ok:
            return result
        try:
            batch: ExploreBatch = parse_explore_batch(
                result.value, setup=exploring.setup, calls=exploring.calls,
                batch=exploring.batch,
            )
        except ProtocolError as exc:
            return self._violation(f"explore answer: {exc}")
        exploring.seen += len(batch.runs)
        if exploring.seen > exploring.limit:
            return self._violation(
                f"explore answer: {exploring.seen} schedules for a limit of {exploring.limit}"
            )
        if batch.more:
            self._exploring = exploring
        return CallResult("returned", value=batch, elapsed=result.elapsed)

    def _violation(self, reason: str) -> CallResult:
        if self._current is not None:
            self._current.protocol_errors += 1
        self.tainted = True
        self._stop("protocol_error")
        return CallResult("protocol_error", detail=reason)


# --------------------------------------------------------------------------- selection


def make_launcher(kind: BackendName, *, image: str | None = None) -> Launcher:
    """The backend for ``kind``; ``docker`` raises SandboxUnavailable when it cannot run."""
    if kind not in ("auto", "docker", "process"):
        raise UsageError(f"unknown sandbox {kind!r}: choose auto, docker or process")
    from derivative.forge.sandbox import _docker, _process

    if kind == "process":
        return _process.ProcessLauncher()
    if kind == "docker":
        return _docker.DockerLauncher.connect(image or _docker.DEFAULT_IMAGE)
    try:
        return _docker.DockerLauncher.connect(image or _docker.DEFAULT_IMAGE, ping_timeout=2.0)
    except SandboxUnavailable:
        return _process.ProcessLauncher()


def open_sandbox(
    candidate: str | os.PathLike[str],
    *,
    module: str | None = None,
    kind: BackendName = "auto",
    contract_sha256: str,
    binds: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    image: str | None = None,
    launcher: Launcher | None = None,
    guard: bool = True,
    avoid: str = "",
    coverage: bool = False,
) -> Sandbox:
    """Stage ``candidate`` and return an (unstarted) session; use it as a context manager.

    ``binds`` maps spec names to ``"module:attr"`` (the spec's ``bind`` declarations);
    ``guard`` installs the runtime guard in the runner (docs/threat-model.md); ``avoid``
    is a candidate folder the staging must not show the candidate at (the replay's);
    ``coverage`` has the runner measure the candidate's lines and arcs (``coverage``).
    """
    chosen = launcher or make_launcher(kind, image=image)
    staged = stage_candidate(candidate, module, avoid=avoid)
    for name, target in (binds or {}).items():
        mod, sep, attr = target.partition(":")
        if not sep or not _module_name_ok(mod) or not _module_name_ok(attr):
            shutil.rmtree(staged.root, ignore_errors=True)
            raise UsageError(f"bind {name} to {target!r}: expected \"module:attr\"")
    return Sandbox(chosen, staged, contract_sha256, dict(binds or {}), limits or Limits(),
                   guard=guard, coverage=coverage)
