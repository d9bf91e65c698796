"""The process backend: the worker as a child process in fresh namespaces.

Works with nothing installed.  The child is started as ``python -I -S worker.py ...`` with a
scrubbed environment, in its own session, with the channel on a dedicated pipe pair passed
as extra file descriptors (never its stdout).  The first request asks the worker to isolate
itself before the candidate is imported (``_worker.setup``): new user, mount, network, PID,
IPC and UTS namespaces where the kernel allows, a private read-only root holding only the
system libraries, the interpreter and the staged candidate, an empty tmpfs ``/tmp``, the
unprivileged id 65534, no capabilities, ``no_new_privs`` and rlimits.  Where namespaces are
not available the child runs as a plain process and the evidence says so.

Why these choices (measured on the development machine, see docs/architecture.md "Sandboxes"):

- a user namespace that maps root to root (or to 65534 inside) still reads root's 0600
  files, so when the host runs as root it writes the id maps itself (``0 0 1`` and
  ``65534 65534 1``) and the worker switches to the *real* id 65534;
- a PID namespace does not limit how many processes a fork bomb makes, and RLIMIT_AS is a
  limit per process: the child joins cgroups (``_cgroup.py``, v1 or v2, nested under the
  host's own) with ``pids.max`` and one memory budget for all its processes together
  (``Limits.memory_bytes``, swap included).  RLIMIT_AS stays at the same figure, so that a
  single process meets a ``MemoryError`` before the cgroup's OOM killer; where no memory
  controller is usable, RLIMIT_NPROC is lowered so that processes x RLIMIT_AS stays within
  the budget, and the evidence says ``weaker:memory-per-process``;
- after the namespaces, the new root and the drop to id 65534, the worker installs a
  seccomp filter (``_worker.py``) that refuses the system calls only an escape needs
  (new namespaces, mounts, ptrace, BPF, the keyring, ...); the host reads ``Seccomp:``
  from ``/proc/PID/status`` itself;
- ``-S`` because importing ``site`` costs ~60 ms in some interpreters and the sandbox offers
  the standard library only (as the Docker image does);
- the host does not believe the worker's account of its isolation: every feature in the
  evidence is read back from ``/proc/PID`` of the sandboxed process before any candidate
  code runs;
- the candidate's stdout and stderr go to a log file under RLIMIT_FSIZE; the worker's
  Python streams forward at most ``Limits.output_bytes`` of it (``output_cap``), so a
  chatty ``print`` never meets that limit, while a direct ``os.write`` still does;
- the staged candidate appears read-only at an ordinary-looking checkout path drawn per
  staging (``Staged.inside``, say ``/home/sam/billing``) and the worker with the
  interleaving explorer beside it at another (``Staged.tools_inside``), so the candidate
  cannot tell a judged run by a fixed ``/sandbox`` prefix.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Literal

from derivative._errors import SandboxUnavailable

from ._cgroup import SandboxCgroup
from ._channel import (
    ChannelError,
    ChannelTimeout,
    FrameChannel,
    ProtocolError,
    Transcript,
    stage_value,
    string_list,
    wait_readable,
    wait_writable,
)
from ._sandbox import Launcher, Limits, Running, Staged

SANDBOX_UID = 65534
SANDBOX_GID = 65534
SCRUBBED_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "HOME": "/tmp"}
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
MIN_PROCESS_AS = 256 << 20
"""The least address space the rlimit fallback gives one process: a Python with a few
threads reserves about that much (stacks, malloc arenas)."""
NAMESPACES = {"user": "user", "mnt": "mount", "net": "network", "pid": "pid", "ipc": "ipc",
              "uts": "uts"}
LOG_TAIL = 4000


# --------------------------------------------------------------------------- pipes


class PipeTransport:
    """The host's ends of the two pipes (requests out, responses in)."""

    def __init__(self, write_fd: int, read_fd: int) -> None:
        self.write_fd = write_fd
        self.read_fd = read_fd
        os.set_blocking(write_fd, False)

    def write_all(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            wait_writable(self.write_fd, deadline)
            try:
                written = os.write(self.write_fd, view)
            except BlockingIOError:
                continue
            view = view[written:]

    def read_some(self, limit: int, deadline: float) -> bytes:
        wait_readable(self.read_fd, deadline)
        return os.read(self.read_fd, limit)

    def close(self) -> None:
        for fd in (self.write_fd, self.read_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.write_fd = self.read_fd = -1


# --------------------------------------------------------------------------- verification


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _status_field(status: str, name: str) -> list[str]:
    for line in status.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].split()
    return []


def verify_credentials(pid: int, uid: int = SANDBOX_UID) -> list[str]:
    """Namespaces, ids, capabilities and ``no_new_privs`` of ``pid``, read from ``/proc``."""
    found: list[str] = []
    for ns, label in NAMESPACES.items():
        try:
            if os.readlink(f"/proc/{pid}/ns/{ns}") != os.readlink(f"/proc/self/ns/{ns}"):
                found.append(f"namespace:{label}")
        except OSError:
            continue
    status = _read(f"/proc/{pid}/status")
    uids = _status_field(status, "Uid")
    if uids and all(u == str(uid) for u in uids):
        found.append(f"uid:{uid}")
    elif uids and all(u != "0" for u in uids):
        found.append(f"uid:{uids[0]} (not root)")
    caps = [_status_field(status, c) for c in ("CapEff", "CapPrm", "CapInh", "CapAmb")]
    if all(c and int(c[0], 16) == 0 for c in caps):
        found.append("capabilities:none")
    if _status_field(status, "NoNewPrivs") == ["1"]:
        found.append("no_new_privs")
    mode = _status_field(status, "Seccomp")
    if mode in (["1"], ["2"]):
        found.append("seccomp:" + ("strict" if mode == ["1"] else "filter"))
        filters = _status_field(status, "Seccomp_filters")
        if filters and filters[0].isdigit() and filters[0] != "0":
            found.append(f"seccomp_filters:{filters[0]}")
    return found


def verify_environment(pid: int, allowed: frozenset[str]) -> list[str]:
    """``env:scrubbed`` and ``python:isolated`` when ``pid``'s environment and flags say so."""
    found: list[str] = []
    environ = _read(f"/proc/{pid}/environ")
    names = {item.split("=", 1)[0] for item in environ.split("\0") if item}
    if environ and names <= allowed:
        found.append("env:scrubbed")
    cmdline = _read(f"/proc/{pid}/cmdline").split("\0")
    if "-I" in cmdline[1:3] and "-S" in cmdline[1:3]:
        found.append("python:isolated")
    return found


def verify_isolation(
    pid: int, cgroup: SandboxCgroup | None, limits: Limits, session: int
) -> tuple[str, ...]:
    """The isolation features of process ``pid`` as the host can see them in ``/proc``."""
    found = verify_credentials(pid)
    mounts = _mount_table(pid)
    root = mounts.get("/")
    if root and root[0] == "tmpfs" and "ro" in root[1]:
        found.append("root:private-readonly")
    tmp = mounts.get("/tmp")
    if tmp and tmp[0] == "tmpfs":
        found.append("tmp:private-tmpfs")
    if cgroup is not None:
        found.extend(cgroup.evidence(pid))
    limits_seen = _rlimits(pid)
    found.extend(limits_seen)
    found.extend(_memory_fallback(found, limits_seen, limits))
    stat = _read(f"/proc/{pid}/stat")
    try:
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == session:
            found.append("session:own")
    except (IndexError, ValueError):
        pass
    found.extend(verify_environment(pid, frozenset(SCRUBBED_ENV)))
    return tuple(found)


def _mount_table(pid: int) -> dict[str, tuple[str, set[str]]]:
    """Mount point -> (file system type, mount options), as process ``pid`` sees them."""
    table: dict[str, tuple[str, set[str]]] = {}
    for line in _read(f"/proc/{pid}/mountinfo").splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        rest = right.split()
        if len(fields) >= 6 and rest:
            table[fields[4]] = (rest[0], set(fields[5].split(",")))
    return table


_LIMIT_NAMES = {"Max cpu time": "cpu", "Max address space": "as", "Max file size": "fsize",
                "Max open files": "nofile", "Max processes": "nproc",
                "Max core file size": "core"}


def _memory_fallback(found: list[str], limits_seen: list[str], limits: Limits) -> list[str]:
    """Without a memory cgroup: whether RLIMIT_NPROC x RLIMIT_AS (read back) keeps every
    process together within the budget; either way, the evidence says it is weaker."""
    if any(f.startswith("memory:cgroup-") for f in found):
        return []
    values = dict(item.removeprefix("rlimit:").split("=", 1) for item in limits_seen)
    nproc, space = values.get("nproc", ""), values.get("as", "")
    if nproc.isdigit() and space.isdigit() and int(nproc) * int(space) <= limits.memory_bytes:
        return [f"memory:rlimit-fallback={nproc}x{space}",
                f"weaker:memory-per-process (no memory cgroup: at most {nproc} processes "
                f"of {int(space) >> 20} MiB address space each)"]
    return ["weaker:memory-unbounded (no memory cgroup, and processes x address space "
            "exceeds the budget)"]


def _rlimits(pid: int) -> list[str]:
    found = []
    for line in _read(f"/proc/{pid}/limits").splitlines():
        for label, short in _LIMIT_NAMES.items():
            if line.startswith(label):
                soft = line[len(label):].split()[0]
                if soft != "unlimited":
                    found.append(f"rlimit:{short}={soft}")
    return found


# --------------------------------------------------------------------------- the running child


class ProcessRunning(Running):
    """A started worker: the child, its namespace init, its cgroup and its log."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        transport: PipeTransport,
        channel: FrameChannel,
        log: IO[bytes],
        cgroup: SandboxCgroup | None,
    ) -> None:
        self.proc = proc
        self.transport = transport
        self.channel = channel
        self.log = log
        self.cgroup = cgroup
        self.inner_pid: int | None = None
        self._inner_fd: int | None = None
        self.isolation = ()
        self.image_id = None
        self.started_monotonic = time.monotonic()

    def oom_kills(self) -> int | None:
        """Processes of this sandbox the memory cgroup's OOM killer has killed so far."""
        return self.cgroup.oom_kills() if self.cgroup is not None else None

    def pin(self, cpu: int) -> None:
        """Every process of the sandbox on ``cpu`` (later children inherit it)."""
        pids = set(self.cgroup.members()) if self.cgroup is not None else set()
        pids.update(p for p in (self.proc.pid, self.inner_pid) if p is not None)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(pid, {cpu})

    def watch_inner(self, pid: int) -> None:
        """Hold a pidfd on the namespace's init so it can be killed without a pid race."""
        self.inner_pid = pid
        with contextlib.suppress(OSError, AttributeError):
            self._inner_fd = os.pidfd_open(pid)

    def kill(self) -> None:
        if self._inner_fd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._inner_fd, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill_all()

    def _wait(self, timeout: float) -> None:
        """Wait for the child's exit; a pidfd wakes at once (Popen.wait polls with sleeps)."""
        try:
            fd = os.pidfd_open(self.proc.pid)
        except (OSError, AttributeError):
            self.proc.wait(timeout)
            return
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
        finally:
            os.close(fd)
        if not ready:
            raise subprocess.TimeoutExpired(self.proc.args, timeout)
        self.proc.wait()

    def finish(self, timeout: float) -> int | None:
        self.transport.close()
        try:
            self._wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5.0)
        # Leftovers (a daemonised grandchild of a plain child) go with the group.
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.remove()
        if self._inner_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._inner_fd)
            self._inner_fd = None
        with contextlib.suppress(OSError):
            self.log.close()
        return self.proc.returncode

    def diagnostics(self) -> str:
        try:
            self.log.flush()
            size = os.fstat(self.log.fileno()).st_size
            self.log.seek(max(size - LOG_TAIL, 0))
            return self.log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""


# --------------------------------------------------------------------------- the launcher


def _python() -> str:
    return os.path.realpath(sys.executable)


def _world_traversable(path: str) -> bool:
    """Whether any user can reach ``path``: every folder on the way has o+x."""
    current = os.path.realpath(path)
    while True:
        try:
            mode = os.stat(current).st_mode
        except OSError:
            return False
        if os.path.isdir(current) and not mode & 0o001:
            return False
        if current == "/":
            return True
        current = os.path.dirname(current)


def _plain_python() -> str | None:
    """An interpreter the unprivileged id can run in a plain child (no private root).

    The host's own interpreter when its files are reachable by everyone, else a system
    Python (the worker needs only the standard library of any Python >= 3.10).
    """
    own = _python()
    if _world_traversable(own) and _world_traversable(os.path.realpath(sys.base_prefix)):
        return own
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        real = os.path.realpath(candidate)
        if os.path.isfile(real) and _world_traversable(real):
            return real
    return None


class _RetryPlain(Exception):
    """Namespaces are unavailable and this interpreter is unusable in a plain child."""


def _root_layout(staged: Staged, extra_ro_binds: Sequence[str]) -> dict[str, Any]:
    """What the sandbox's private root holds: read-only binds, symlinks and devices."""
    binds: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    for path in SYSTEM_DIRS + SYSTEM_FILES:
        if os.path.islink(path):
            links.append((os.readlink(path), path))
        elif os.path.exists(path):
            binds.append((path, path))
    covered = [b for b, _ in binds if os.path.isdir(b)]
    for prefix in {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix,
                                                 os.path.dirname(os.path.dirname(_python())))}:
        if not any(prefix == c or prefix.startswith(c + "/") for c in covered):
            binds.append((prefix, prefix))
            covered.append(prefix)
    for extra in extra_ro_binds:
        binds.append((os.path.realpath(extra), os.path.realpath(extra)))
    binds.append((str(staged.sandbox_dir), staged.tools_inside))
    binds.append((str(staged.candidate_dir), staged.inside))
    return {"ro_binds": binds, "symlinks": links, "devices": list(DEVICES),
            "mountpoint": str(staged.root / "root"), "candidate_inside": staged.inside,
            "tools_inside": staged.tools_inside}


def memory_rlimits(limits: Limits, cgroup: SandboxCgroup | None) -> tuple[int, int]:
    """(RLIMIT_NPROC, RLIMIT_AS) for the sandbox.

    With a memory cgroup the cgroup holds the budget and RLIMIT_AS is the whole budget (one
    process meets a ``MemoryError`` before the OOM killer).  Without one, fewer processes,
    each with a share of the budget: processes x address space <= the budget, at least
    ``MIN_PROCESS_AS`` each (so fewer processes and threads than ``Limits.pids``).
    """
    if cgroup is not None and cgroup.memory_version is not None:
        return limits.pids, limits.memory_bytes
    nproc = max(1, min(limits.pids, limits.memory_bytes // MIN_PROCESS_AS))
    return nproc, limits.memory_bytes // nproc


class ProcessLauncher(Launcher):
    """Starts workers as isolated child processes of this one."""

    name: Literal["process", "docker"] = "process"

    def __init__(self, *, namespaces: bool = True, extra_ro_binds: Sequence[str] = ()) -> None:
        """``namespaces=False`` asks for a plain child (tests of the fallback);
        ``extra_ro_binds`` shows more host paths read-only inside (tests only)."""
        self.namespaces = namespaces
        self.extra_ro_binds = tuple(extra_ro_binds)
        self._namespaces_failed = False

    def _plain(self) -> bool:
        return not self.namespaces or self._namespaces_failed

    def _interpreter(self) -> str:
        if not self._plain() or os.geteuid() != 0:
            return _python()
        python = _plain_python()
        if python is None:
            raise SandboxUnavailable(
                "no namespaces here, and no Python that the unprivileged id 65534 can read "
                f"({_python()} is in a private folder); install python3 under /usr or use "
                "`--sandbox docker`"
            )
        return python

    def _setup_request(self, staged: Staged, limits: Limits,
                       cgroup: SandboxCgroup | None) -> dict[str, Any]:
        nproc, space = memory_rlimits(limits, cgroup)
        args: dict[str, Any] = {
            "namespaces": not self._plain(),
            "map_by_host": os.geteuid() == 0,
            "uid": SANDBOX_UID,
            "gid": SANDBOX_GID,
            "tmp_bytes": limits.tmp_bytes,
            "log_fd": 2,
            "output_cap": limits.output_bytes,
            "workdir": str(staged.root / "work"),
            "seccomp": True,
            "rlimits": {
                "CPU": [limits.cpu_seconds, limits.cpu_seconds + 1],
                "AS": space,
                "FSIZE": limits.file_bytes,
                "NOFILE": limits.open_files,
                "NPROC": nproc,
                "CORE": 0,
            },
        }
        args.update(_root_layout(staged, self.extra_ro_binds))
        return {"id": 0, "op": "setup", "args": args}

    def launch(
        self, staged: Staged, limits: Limits, transcript: Transcript, deadline: float
    ) -> ProcessRunning:
        try:
            return self._launch(staged, limits, transcript, deadline)
        except _RetryPlain:
            # Learnt once per launcher: later starts go straight to the plain child.
            self._namespaces_failed = True
            return self._launch(staged, limits, transcript, deadline)

    def _launch(
        self, staged: Staged, limits: Limits, transcript: Transcript, deadline: float
    ) -> ProcessRunning:
        python = self._interpreter()
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        log = tempfile.TemporaryFile(prefix="derivative-sandbox-log-")  # noqa: SIM115
        cgroup = SandboxCgroup.create(limits.pids, limits.memory_bytes)
        command = [python, "-I", "-S", str(staged.worker), str(staged.candidate_dir),
                   staged.module, f"--fds={req_r},{resp_w}"]
        try:
            proc = subprocess.Popen(
                command,
                pass_fds=(req_r, resp_w),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=dict(SCRUBBED_ENV),
                cwd=str(staged.root / "work"),
                start_new_session=True,
            )
        except OSError as exc:
            for fd in (req_w, resp_r):
                os.close(fd)
            log.close()
            if cgroup is not None:
                cgroup.remove()
            raise SandboxUnavailable(f"cannot start the sandbox worker: {exc}") from exc
        finally:
            os.close(req_r)
            os.close(resp_w)
        if cgroup is not None and not cgroup.add(proc.pid):
            cgroup.remove()
            cgroup = None
        transport = PipeTransport(req_w, resp_r)
        running = ProcessRunning(proc, transport, FrameChannel(transport, transcript), log, cgroup)
        try:
            self._set_up(running, staged, limits, deadline)
        except _RetryPlain:
            running.kill()
            running.finish(timeout=2.0)
            raise
        except (ChannelError, OSError, ValueError) as exc:
            diagnostics = running.diagnostics()
            running.kill()
            running.finish(timeout=2.0)
            if isinstance(exc, ChannelTimeout):
                reason = "the sandbox did not finish its set-up in time"
            else:
                reason = f"the sandbox set-up failed: {exc}"
            if diagnostics:
                reason += f"\n{diagnostics}"
            raise SandboxUnavailable(reason) from exc
        return running

    def _set_up(self, running: ProcessRunning, staged: Staged, limits: Limits,
                deadline: float) -> None:
        channel = running.channel
        request = self._setup_request(staged, limits, running.cgroup)
        unshared = stage_value(channel.request(request, deadline, decode=False), "unshared")
        namespaces = string_list(unshared.get("namespaces", []))
        if (
            not self._plain()
            and not namespaces
            and os.geteuid() == 0
            and _plain_python() != _python()
        ):
            raise _RetryPlain()
        if unshared.get("awaiting_map") is True:
            pid = running.proc.pid
            mapping = f"0 0 1\n{SANDBOX_UID} {SANDBOX_UID} 1\n"
            gmapping = f"0 0 1\n{SANDBOX_GID} {SANDBOX_GID} 1\n"
            Path(f"/proc/{pid}/uid_map").write_text(mapping)
            Path(f"/proc/{pid}/gid_map").write_text(gmapping)
            channel.send({"id": 0, "op": "mapped"}, deadline)
        inner = running.proc.pid
        if "pid" in namespaces:
            forked = stage_value(channel.receive(0, deadline), "forked")
            child = forked.get("pid")
            if type(child) is not int or child <= 1:
                raise ProtocolError("bad pid in the set-up response")
            inner = child
            running.watch_inner(child)
        response = channel.receive(0, deadline)
        if (
            response.ok
            and isinstance(response.raw_value, dict)
            and response.raw_value.get("stage") == "failed"
        ):
            errors = string_list(response.raw_value.get("errors", []))
            raise ProtocolError("; ".join(errors) or "set-up failed")
        ready = stage_value(response, "ready")
        isolation = list(verify_isolation(inner, running.cgroup, limits, running.proc.pid))
        if not {"namespace:user", "namespace:pid", "namespace:mount"} & set(isolation) or (
            "namespace:pid" not in isolation
        ):
            reasons = string_list(unshared.get("errors", []))
            isolation.append(
                "weaker:plain-child" + (f" ({'; '.join(reasons)})" if reasons else "")
            )
        if "seccomp:filter" not in isolation:
            told = string_list(ready.get("errors", []))
            why = "; ".join(e for e in told if e.startswith("seccomp")) or "not installed"
            isolation.append(f"weaker:no-seccomp-filter ({why})")
        running.isolation = tuple(isolation)
