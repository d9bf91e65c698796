"""What a candidate cannot do from inside the sandbox, checked from inside and from outside.

Each check runs the hostile code for real.  Where a check could pass for the wrong reason
(nothing to read, nothing listening), a positive control shows the same probe succeeding
where it should: the public file next to the secret one is readable, the plain child (the
weaker fallback) does see the host's ``/tmp`` and does reach the listening socket.
"""

from __future__ import annotations

import errno
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from derivative.forge.sandbox._process import ProcessLauncher
from derivative.forge.sandbox._sandbox import CallResult, Launcher, Limits, Sandbox, open_sandbox

pytestmark = pytest.mark.slow

Make = Callable[..., Sandbox]

PROBES = """
import os, socket, errno

def ids():
    return [os.getuid(), os.geteuid(), os.getgid(), os.getegid(), sorted(os.getgroups())]

def environment():
    return sorted(os.environ)

def listing(path):
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        return "error:" + type(exc).__name__

def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode()
    except OSError as exc:
        return "error:" + type(exc).__name__

def write(path):
    try:
        with open(path, "w") as f:
            f.write("x")
        return "written"
    except OSError as exc:
        return "error:" + type(exc).__name__

def connect(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return "connected"
    except OSError as exc:
        return "error:" + type(exc).__name__

def interfaces():
    return sorted(name for _, name in socket.if_nameindex())

def module_dir():
    return os.path.dirname(os.path.abspath(__file__))
"""

BOMBS = """
import os, time

def count_forks():
    made = 0
    try:
        while True:
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            made += 1
            if made > 10000:
                return [made, 0]
    except OSError as exc:
        return [made, exc.errno]

def fork_bomb():
    while True:
        try:
            os.fork()
        except OSError:
            pass

def escape_and_linger():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        time.sleep(120)
        os._exit(0)
    return pid

def eat_memory():
    hoard = []
    while True:
        hoard.append(b"x" * (32 << 20))

def one_huge_block():
    return len(b"x" * (8 << 30))

def fine():
    return "fine"
"""


@pytest.fixture
def listening_port() -> Iterator[int]:
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    try:
        yield int(server.getsockname()[1])
    finally:
        server.close()


def _leftovers(marker: str) -> list[int]:
    """Host processes whose command line names the staged sandbox folder."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


# --------------------------------------------------------------------------- both backends


def _text(result: CallResult) -> str:
    assert isinstance(result.value, str), result
    return result.value


def _list(result: CallResult) -> list[Any]:
    assert isinstance(result.value, list), result
    return result.value


def test_the_candidate_runs_as_the_unprivileged_id(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(PROBES, launcher)
    uid, euid, gid, egid, groups = _list(sb.call("ids"))
    assert (uid, euid, gid, egid) == (65534, 65534, 65534, 65534)
    assert groups in ([], [65534])
    assert "uid:65534" in sb.isolation and "capabilities:none" in sb.isolation
    assert "no_new_privs" in sb.isolation


def test_the_environment_is_scrubbed(launcher: Launcher, sandbox_factory: Make) -> None:
    os.environ["DERIVATIVE_TEST_SECRET"] = "hunter2"
    try:
        sb = sandbox_factory(PROBES, launcher)
        names = sb.call("environment").value
    finally:
        del os.environ["DERIVATIVE_TEST_SECRET"]
    assert isinstance(names, list)
    assert set(names) <= {"PATH", "LC_ALL", "LANG", "HOME", "HOSTNAME"}, names


def test_there_is_no_network(
    launcher: Launcher, sandbox_factory: Make, listening_port: int
) -> None:
    sb = sandbox_factory(PROBES, launcher)
    assert _text(sb.call("connect", [listening_port])).startswith("error:")
    assert sb.call("interfaces").value == ["lo"]


def test_the_file_system_is_read_only_except_an_empty_private_tmp(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(PROBES, launcher)
    assert sb.call("listing", ["/tmp"]).value == []
    assert sb.call("write", ["/tmp/scratch"]).value == "written"
    assert sb.call("listing", ["/tmp"]).value == ["scratch"]
    here = sb.call("module_dir").value
    assert isinstance(here, str)
    assert _text(sb.call("write", [here + "/cand.py"])).startswith("error:")
    assert _text(sb.call("write", [here + "/new.py"])).startswith("error:")
    for path in ("/evil", "/usr/evil", "/etc/evil"):
        assert _text(sb.call("write", [path])).startswith("error:"), path


def test_a_fork_bomb_is_stopped_by_the_process_limit(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    limits = Limits(pids=16, call_timeout=3.0)
    sb = sandbox_factory(BOMBS, launcher, limits)
    made, code = _list(sb.call("count_forks"))
    assert 0 < made < 16 and code == errno.EAGAIN
    bomb = sb.call("fork_bomb")
    assert bomb.status == "timeout"
    assert sb.call("fine").value == "fine"
    marker = str(sb.staged.root)
    sb.close()
    if launcher.name == "process":
        assert _leftovers(marker) == []


def test_a_memory_bomb_is_stopped(launcher: Launcher, sandbox_factory: Make) -> None:
    sb = sandbox_factory(BOMBS, launcher, Limits(memory_bytes=512 << 20, call_timeout=20.0))
    for function in ("one_huge_block", "eat_memory"):
        result = sb.call(function)
        if result.status == "raised":
            assert result.exc is not None and result.exc.derives_from_builtin("MemoryError"), \
                result
        else:
            assert result.status == "out_of_memory", result  # the OOM killer, reported
        assert sb.call("fine").value == "fine"


def test_a_process_that_leaves_the_session_dies_with_the_sandbox(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(BOMBS, launcher)
    assert isinstance(sb.call("escape_and_linger").value, int)
    marker = str(sb.staged.root)
    if launcher.name == "process":
        assert _leftovers(marker), "the lingering child should exist while the sandbox runs"
    sb.close()
    deadline = time.monotonic() + 5
    while launcher.name == "process" and _leftovers(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    if launcher.name == "process":
        assert _leftovers(marker) == []
    else:
        client = launcher.client  # type: ignore[attr-defined]
        left = client.containers.list(all=True, filters={"label": "org.derivative.sandbox"})
        assert left == []


# --------------------------------------------------------------------------- process backend


def test_process_isolation_evidence_is_verified_from_outside(
    process_launcher: ProcessLauncher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(PROBES, process_launcher)
    expected = {
        "namespace:user", "namespace:mount", "namespace:network", "namespace:pid",
        "namespace:ipc", "namespace:uts", "uid:65534", "capabilities:none", "no_new_privs",
        "root:private-readonly", "tmp:private-tmpfs", "session:own", "env:scrubbed",
        "python:isolated", "rlimit:nofile=256", "rlimit:core=0",
    }
    assert expected <= set(sb.isolation), sorted(expected - set(sb.isolation))
    assert any(i.startswith("cgroup:pids.max=") for i in sb.isolation)
    assert any(i.startswith("rlimit:as=") for i in sb.isolation)
    assert f"memory:cgroup-v1={1 << 30}" in sb.isolation or (
        f"memory:cgroup-v2={1 << 30}" in sb.isolation), sb.isolation
    assert {"swap:none", "seccomp:filter", "seccomp_filters:1"} <= set(sb.isolation)
    assert not any(i.startswith("weaker") for i in sb.isolation)
    receipts = sb.close()
    assert receipts[0].isolation == tuple(sb.isolation)


def test_a_root_only_file_is_unreadable_inside(
    write_candidate: Callable[..., Path], tmp_path: Path
) -> None:
    assert os.geteuid() == 0, "this check needs a root host: CI runs as root"
    shown = tmp_path / "shown"
    shown.mkdir(mode=0o755)
    secret = shown / "secret.txt"
    secret.write_text("root only")
    os.chmod(secret, 0o600)
    public = shown / "public.txt"
    public.write_text("anyone")
    os.chmod(public, 0o644)
    launcher = ProcessLauncher(extra_ro_binds=[str(shown)])
    with open_sandbox(write_candidate(PROBES), contract_sha256="c", launcher=launcher,
                          guard=False) as sb:
        assert sb.call("read", [str(public)]).value == "anyone"  # it is visible ...
        assert sb.call("read", [str(secret)]).value == "error:PermissionError"  # ... not readable


def test_the_host_tmp_root_and_home_are_not_visible(
    process_launcher: ProcessLauncher, write_candidate: Callable[..., Path]
) -> None:
    marker = Path("/tmp") / f"derivative-host-marker-{os.getpid()}"
    marker.write_text("host")
    try:
        path = write_candidate(PROBES)
        with open_sandbox(path, contract_sha256="c", launcher=process_launcher,
                          guard=False) as sb:
            assert sb.call("listing", ["/tmp"]).value == []
            assert sb.call("read", [str(marker)]).value == "error:FileNotFoundError"
            # /home holds the staged checkout's folder only, never the host's
            assert sb.call("listing", ["/home"]).value == [sb.staged.inside.split("/")[2]]
            assert sb.call("listing", ["/run"]).value == "error:FileNotFoundError"
            root = sb.call("listing", ["/root"]).value
            # at most the path to the interpreter, when it lives under /root (pyenv)
            assert root == "error:FileNotFoundError" or root in ([], [".pyenv"]), root
            top = sb.call("listing", ["/"]).value
            assert isinstance(top, list) and "work" not in top
        # the weaker fallback sees the host: the probes above can tell the difference
        plain = ProcessLauncher(namespaces=False)
        with open_sandbox(path, contract_sha256="c", launcher=plain, guard=False) as sb:
            assert sb.call("read", [str(marker)]).value == "host"
    finally:
        marker.unlink()


def test_the_plain_fallback_is_labelled_weaker(
    write_candidate: Callable[..., Path], listening_port: int
) -> None:
    plain = ProcessLauncher(namespaces=False)
    with open_sandbox(write_candidate(PROBES), contract_sha256="c", launcher=plain,
                      guard=False) as sb:
        assert any(i.startswith("weaker:plain-child") for i in sb.isolation)
        assert not any(i.startswith("namespace:") for i in sb.isolation)
        assert sb.call("connect", [listening_port]).value == "connected"
        assert _list(sb.call("ids"))[0] == 65534
        receipts = sb.close()
    assert any(i.startswith("weaker") for i in receipts[0].isolation)


def test_the_cgroups_go_away_with_the_sandbox(
    process_launcher: ProcessLauncher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(PROBES, process_launcher)
    current = sb._current
    assert current is not None
    cgroup = current.running.cgroup  # type: ignore[attr-defined]
    assert cgroup is not None and {"pids", "memory"} <= set(cgroup.folders)
    assert cgroup.paths and all(p.is_dir() for p in cgroup.paths)
    sb.close()
    assert not any(p.exists() for p in cgroup.paths)


def test_the_cgroups_go_away_after_a_kill(
    process_launcher: ProcessLauncher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(BOMBS, process_launcher, Limits(call_timeout=1.0))
    current = sb._current
    assert current is not None
    cgroup = current.running.cgroup  # type: ignore[attr-defined]
    assert cgroup is not None and cgroup.paths
    assert sb.call("fork_bomb").status == "timeout"  # killed at the call limit
    assert not any(p.exists() for p in cgroup.paths)
    assert sb.call("fine").value == "fine"


def test_process_start_is_fast(
    process_launcher: ProcessLauncher, write_candidate: Callable[..., Path]
) -> None:
    path = write_candidate("def f():\n    return 1\n")
    times = []
    for _ in range(5):
        started = time.monotonic()
        with open_sandbox(path, contract_sha256="c", launcher=process_launcher,
                          guard=False) as sb:
            assert sb.call("f").value == 1
            times.append(time.monotonic() - started)
    times.sort()
    assert times[len(times) // 2] < 1.0, times  # ~0.1 s measured; generous for noisy CI
