"""The Docker backend: the worker in a hardened, throw-away container.

Settings (docs/architecture.md "Sandboxes"): no network, a read-only root, a tmpfs ``/tmp``, all
capabilities dropped, ``no-new-privileges``, user 65534, the engine's default seccomp
profile (kept: it already refuses what the process backend's own filter refuses, except
ptrace inside the container), one memory budget for the container (swap included), pids
and CPU limits, rlimits, no log driver (the candidate cannot fill the host's disk through
its output), and a wall clock enforced from outside: the host kills the container when a
call overruns.  The container is always removed.  Where the engine runs on this host,
the container's memory cgroup is found from its process, and its OOM-kill counter is read
around every request, so that an exceeded budget is reported as such.

The image is looked up with ``images.get`` and never pulled (docker-py's ``containers.run``
would silently pull a missing image); no engine or no image is ``SandboxUnavailable`` with
the fix.  The staged candidate and the worker are bind-mounted read-only at the staging's
ordinary-looking paths (``Staged.inside`` and ``Staged.tools_inside``).

The channel is the container's stdin/stdout through the attach socket: the worker keeps
private duplicates of fds 0 and 1 and points the candidate's stdout and stderr at the
container's stderr before importing anything, so nothing the candidate prints reaches the
channel.  The attach stream multiplexes stdout and stderr with 8-byte headers; this module
demultiplexes it, keeps a capped tail of stderr for diagnostics, and hands stdout to the
framed channel.  The worker's Python streams forward at most ``Limits.output_bytes`` of the
candidate's prints (``output_cap`` in the set-up), so a chatty candidate does not push its
output through the attach stream; only writes to the descriptors themselves still do.
Frames are printable ASCII, so no byte of the protocol can form the engine's detach key
sequence.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import socket
import time
from pathlib import Path
from typing import Any, Literal

from derivative._errors import SandboxUnavailable

from ._cgroup import OOM_FILE, Version, cgroup_of, forget_counter, oom_kills_in
from ._channel import (
    ChannelError,
    ChannelTimeout,
    FrameChannel,
    ProtocolError,
    Transcript,
    stage_value,
    wait_writable,
)
from ._image import DEFAULT_TAG, FIX_OFFLINE, docker_client, docker_error
from ._process import verify_credentials, verify_environment
from ._sandbox import Launcher, Limits, Running, Staged

DEFAULT_IMAGE = DEFAULT_TAG
SANDBOX_USER = "65534:65534"
ENVIRONMENT = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/tmp"}
STDERR_TAIL = 64 * 1024
_LIVE: dict[str, Any] = {}
"""Containers started by this process and not yet removed (removed at exit, whatever happens)."""


def _remove_leftovers() -> None:
    for cid, client in list(_LIVE.items()):
        with contextlib.suppress(Exception):
            client.api.remove_container(cid, force=True)
        _LIVE.pop(cid, None)


atexit.register(_remove_leftovers)


class AttachTransport:
    """The raw attach socket: frames out on stdin, demultiplexed stdout in."""

    def __init__(self, sock: Any) -> None:
        self._holder = sock
        self.sock: socket.socket = getattr(sock, "_sock", sock)
        self.sock.setblocking(False)
        self._raw = bytearray()
        self._stdout = bytearray()
        self.stderr_tail = bytearray()
        self.stderr_bytes = 0
        """Everything the container wrote to stderr so far (only the tail is kept)."""
        self._eof = False

    def write_all(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            wait_writable(self.sock.fileno(), deadline)
            try:
                sent = self.sock.send(view)
            except BlockingIOError:
                continue
            view = view[sent:]

    def _demux(self) -> None:
        while len(self._raw) >= 8:
            kind = self._raw[0]
            size = int.from_bytes(self._raw[4:8], "big")
            if kind not in (0, 1, 2) or self._raw[1:4] != b"\0\0\0":
                raise ProtocolError("the engine's attach stream is not multiplexed as expected")
            if len(self._raw) < 8 + size:
                return
            payload = bytes(self._raw[8 : 8 + size])
            del self._raw[: 8 + size]
            if kind == 1:
                self._stdout.extend(payload)
            elif kind == 2:
                self.stderr_bytes += len(payload)
                self.stderr_tail.extend(payload)
                if len(self.stderr_tail) > STDERR_TAIL:
                    del self.stderr_tail[: len(self.stderr_tail) - STDERR_TAIL]

    def read_some(self, limit: int, deadline: float) -> bytes:
        while not self._stdout:
            if self._eof or self.sock.fileno() < 0:
                # closed by kill(): nothing more will come
                return b""
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                # checked even while data keeps arriving: a stream that is always ready
                # must not outrun the deadline
                raise ChannelTimeout("no response before the deadline")
            ready, _, _ = select.select([self.sock.fileno()], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = self.sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                self._eof = True
                continue
            if not chunk:
                self._eof = True
                continue
            self._raw.extend(chunk)
            self._demux()
        out = bytes(self._stdout[:limit])
        del self._stdout[:limit]
        return out

    def close_input(self) -> None:
        """Half-close: the container's stdin sees end of file (the worker then exits)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(Exception):
            self._holder.close()


class DockerRunning(Running):
    """One container and its attach socket."""

    def __init__(self, client: Any, cid: str, transport: AttachTransport,
                 channel: FrameChannel, isolation: tuple[str, ...], image_id: str) -> None:
        self.client = client
        self.cid = cid
        self.transport = transport
        self.channel = channel
        self.isolation = isolation
        self.image_id = image_id
        self.started_monotonic = time.monotonic()
        self._removed = False
        self.memory_cgroup: tuple[Path, Version] | None = None
        """The container's memory cgroup on this host (None: the engine is elsewhere)."""
        self._oom_last = 0

    def pin(self, cpu: int) -> None:
        """The container on ``cpu`` (its cpuset; the engine applies it to every process)."""
        with contextlib.suppress(Exception):
            self.client.api.update_container(self.cid, cpuset_cpus=str(cpu))

    def oom_kills(self) -> int | None:
        """The container's OOM kills: its cgroup's counter while it exists; once the
        container is gone (its cgroup with it), what the engine says of its end."""
        if self.memory_cgroup is None:
            return None
        count = oom_kills_in(*self.memory_cgroup)
        if count is not None:
            self._oom_last = count
            return count
        try:
            state = self.client.api.inspect_container(self.cid).get("State") or {}
        except Exception:
            return self._oom_last
        return self._oom_last + (1 if state.get("OOMKilled") else 0)

    def kill(self) -> None:
        # Close the attach socket first: while a flooding container's output sits unread in
        # the socket, the engine's kill blocks until the client's own time-out (120 s by
        # default), and the wall-clock limit would no longer hold.
        self.transport.close()
        with contextlib.suppress(Exception):
            self.client.api.kill(self.cid)

    def finish(self, timeout: float) -> int | None:
        status: int | None = None
        self.transport.close_input()
        try:
            result = self.client.api.wait(self.cid, timeout=max(int(timeout), 1))
            status = int(result.get("StatusCode"))
        except Exception:
            self.kill()
            with contextlib.suppress(Exception):
                status = int(self.client.api.wait(self.cid, timeout=10).get("StatusCode"))
        self.transport.close()
        self._remove()
        return status

    def _remove(self) -> None:
        if self._removed:
            return
        if self.memory_cgroup is not None:
            folder, version = self.memory_cgroup
            forget_counter(str(folder / OOM_FILE[version]))
        with contextlib.suppress(Exception):
            self.client.api.remove_container(self.cid, force=True)
        _LIVE.pop(self.cid, None)
        self._removed = True

    def diagnostics(self) -> str:
        return bytes(self.transport.stderr_tail[-4000:]).decode("utf-8", "replace").strip()


def _isolation_from_inspect(info: dict[str, Any], engine_seccomp: str | None) -> tuple[str, ...]:
    """The container's isolation: read from ``/proc`` of its process where this host can
    see it (the engine runs here), else as the engine reports its settings; limits and the
    read-only root always as the engine reports them (never merely as requested); the
    seccomp profile as the engine names it (``engine_seccomp``) unless the container
    overrides it."""
    host = info.get("HostConfig") or {}
    config = info.get("Config") or {}
    pid = int((info.get("State") or {}).get("Pid") or 0)
    seen = verify_credentials(pid) if pid > 0 and os.path.exists(f"/proc/{pid}/ns") else []
    found: list[str]
    if seen:
        found = seen + verify_environment(pid, frozenset({*ENVIRONMENT, "HOSTNAME"}))
    else:
        found = ["namespace:mount", "namespace:pid", "namespace:ipc", "namespace:uts"]
        if host.get("NetworkMode") == "none":
            found.append("namespace:network")
        if config.get("User") == SANDBOX_USER:
            found.append("uid:65534")
        if [c.upper() for c in host.get("CapDrop") or []] == ["ALL"] and not host.get("CapAdd"):
            found.append("capabilities:none")
        if any(o.startswith("no-new-privileges") for o in host.get("SecurityOpt") or []):
            found.append("no_new_privs")
        found.extend(["env:scrubbed", "python:isolated"])
    if host.get("NetworkMode") == "none":
        found.append("network:none")
    if host.get("ReadonlyRootfs"):
        found.append("root:read-only")
    if "/tmp" in (host.get("Tmpfs") or {}):
        found.append("tmp:private-tmpfs")
    if host.get("Memory"):
        found.append(f"memory:{host['Memory']}")
        if host.get("MemorySwap") == host.get("Memory"):
            found.append("swap:none")
    if host.get("PidsLimit"):
        found.append(f"pids:{host['PidsLimit']}")
    if host.get("NanoCpus"):
        found.append(f"cpus:{host['NanoCpus'] / 1e9:g}")
    for ulimit in host.get("Ulimits") or []:
        found.append(f"rlimit:{ulimit.get('Name')}={ulimit.get('Soft')}")
    if not host.get("Privileged"):
        found.append("unprivileged")
    overridden = any(str(o).startswith("seccomp") for o in host.get("SecurityOpt") or [])
    if engine_seccomp and not overridden and not host.get("Privileged"):
        found.append(f"seccomp:docker-{engine_seccomp}")
    return tuple(found)


def _engine_seccomp(client: Any) -> str | None:
    """The engine's seccomp profile (``default`` for its built-in one), from its info."""
    try:
        options = client.info().get("SecurityOptions") or []
    except Exception:
        return None
    for option in options:
        fields = dict(part.partition("=")[::2] for part in str(option).split(","))
        if fields.get("name") == "seccomp":
            profile = fields.get("profile") or "default"
            return "default" if profile == "builtin" else profile
    return None


class DockerLauncher(Launcher):
    """Starts one hardened container per sandbox start."""

    name: Literal["process", "docker"] = "docker"

    def __init__(self, client: Any, image_id: str, tag: str) -> None:
        self.client = client
        self.image_id = image_id
        self.tag = tag
        self.seccomp = _engine_seccomp(client)
        """The engine's seccomp profile (asked once): every container keeps it."""

    @classmethod
    def connect(cls, image: str = DEFAULT_IMAGE, *, ping_timeout: float = 10.0) -> DockerLauncher:
        """An engine that answers and an image that is present, or SandboxUnavailable."""
        from docker.errors import APIError, ImageNotFound

        client = docker_client(timeout=max(int(ping_timeout), 1))
        try:
            found = client.images.get(image)
        except ImageNotFound:
            raise SandboxUnavailable(
                f"the sandbox image {image} is not present (it is never pulled); {FIX_OFFLINE}"
            ) from None
        except APIError as exc:
            raise SandboxUnavailable(f"the Docker engine failed to look up {image}: "
                                     f"{docker_error(exc)}") from exc
        client.api.timeout = 120
        return cls(client, str(found.id), image)

    def launch(
        self, staged: Staged, limits: Limits, transcript: Transcript, deadline: float
    ) -> DockerRunning:
        from docker.errors import DockerException
        from docker.types import LogConfig, Ulimit

        api = self.client.api
        memory = int(limits.memory_bytes)
        host_config = api.create_host_config(
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={limits.tmp_bytes},mode=1777"},
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            mem_limit=memory,
            memswap_limit=memory,
            pids_limit=limits.pids,
            nano_cpus=int(limits.cpus * 1e9),
            binds={str(staged.sandbox_dir): {"bind": staged.tools_inside, "mode": "ro"},
                   str(staged.candidate_dir): {"bind": staged.inside, "mode": "ro"}},
            ulimits=[
                Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
                Ulimit(name="fsize", soft=limits.file_bytes, hard=limits.file_bytes),
                Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds + 1),
                Ulimit(name="core", soft=0, hard=0),
                # RLIMIT_DATA turns a memory bomb into a MemoryError before the OOM killer
                Ulimit(name="data", soft=memory, hard=memory),
            ],
            log_config=LogConfig(type="none"),
            ipc_mode="private",
        )
        command = ["python3", "-I", "-S", f"{staged.tools_inside}/worker.py", staged.inside,
                   staged.module, "--stdio"]
        cid: str | None = None
        try:
            created = api.create_container(
                image=self.image_id,
                command=command,
                user=SANDBOX_USER,
                working_dir="/tmp",
                environment=dict(ENVIRONMENT),
                stdin_open=True,
                tty=False,
                network_disabled=True,
                host_config=host_config,
                labels={"org.derivative.sandbox": "1"},
            )
            cid = str(created["Id"])
            _LIVE[cid] = self.client
            sock = api.attach_socket(cid, params={"stdin": 1, "stdout": 1, "stderr": 1,
                                                  "stream": 1})
            api.start(cid)
        except DockerException as exc:
            if cid is not None:
                with contextlib.suppress(Exception):
                    api.remove_container(cid, force=True)
                _LIVE.pop(cid, None)
            raise SandboxUnavailable(
                f"the Docker sandbox could not start: {docker_error(exc)}") from exc
        transport = AttachTransport(sock)
        running = DockerRunning(self.client, cid, transport,
                                FrameChannel(transport, transcript), (), self.image_id)
        try:
            # A set-up round trip without namespaces (the engine made them): once the worker
            # has answered, its process is the one /proc shows, so the check is not racing
            # the container's start.
            channel = running.channel
            setup = {"id": 0, "op": "setup",
                     "args": {"namespaces": False, "log_fd": 2,
                              "output_cap": limits.output_bytes}}
            stage_value(channel.request(setup, deadline, decode=False), "unshared")
            stage_value(channel.receive(0, deadline), "ready")
            info = api.inspect_container(cid)
            running.isolation = _isolation_from_inspect(info, self.seccomp)
            pid = int((info.get("State") or {}).get("Pid") or 0)
            found = cgroup_of("memory", pid) if pid > 0 else None
            if found is not None and cid in str(found[0]):  # this container's, on this host
                running.memory_cgroup = found
        except (ChannelError, OSError, DockerException) as exc:
            diagnostics = running.diagnostics()
            running.kill()
            running.finish(timeout=2.0)
            why = docker_error(exc) if isinstance(exc, DockerException) else str(exc)
            reason = f"the Docker sandbox did not finish its set-up: {why}"
            raise SandboxUnavailable(reason + (f"\n{diagnostics}" if diagnostics else "")) from exc
        return running
