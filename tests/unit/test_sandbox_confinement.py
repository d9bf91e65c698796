"""The seccomp program and the memory verdict, without a kernel or a sandbox.

- The worker's classic BPF program is run here by a small interpreter of the few
  instructions it uses, for both architectures it knows: every refused call answers
  EPERM, clone3 ENOSYS, clone with a namespace flag EPERM and without one is allowed,
  ordinary calls are allowed, and a foreign architecture or the x32 ABI is killed.
  The kernel runs the same program in ``tests/integration/test_sandbox_budget.py``.
- A backend whose OOM-kill counter grows during a request turns that request into
  ``out_of_memory`` (a failed call, ``SandboxOutOfMemory`` for the engine, a receipt
  that says so, a fresh sandbox for the next call), whatever the channel did.
- The rlimit fallback keeps processes x address space within the budget.
"""

from __future__ import annotations

import errno
import struct
import time
from pathlib import Path
from typing import Any

import pytest

from derivative.forge.inside import _worker
from derivative.forge.sandbox._process import MIN_PROCESS_AS, memory_rlimits
from derivative.forge.sandbox._sandbox import Limits

KILL, ALLOW, ERRNO = 0x80000000, 0x7FFF0000, 0x00050000
AUDIT = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
AUDIT_I386 = 0x40000003


def run_filter(program: list[tuple[int, int, int, int]], nr: int, arch: int,
               args: tuple[int, ...] = ()) -> int:
    """The action the program returns for one system call (seccomp_data, little-endian)."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(list(args) + [0] * 6)[:6])
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = program[pc]
        pc += 1
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == 0x06:  # ret k
            return k
        elif code in (0x15, 0x35, 0x45):  # jeq, jge, jset
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += jt if taken else jf
        else:  # pragma: no cover - the program uses nothing else
            raise AssertionError(f"unexpected instruction {code:#x}")


@pytest.mark.parametrize(("machine", "column"), [("x86_64", 0), ("aarch64", 1)])
def test_the_filter_refuses_escape_calls_and_allows_the_rest(machine: str, column: int) -> None:
    program = _worker._seccomp_program(machine)
    assert program is not None and len(program) < 4096
    assert all(0 <= pc + 1 + max(jt, jf) < len(program)
               for pc, (code, jt, jf, _) in enumerate(program) if code in (0x15, 0x35, 0x45))
    arch = AUDIT[machine]
    for name, numbers in _worker.SECCOMP_REFUSED.items():
        if numbers[column] is not None:
            assert run_filter(program, numbers[column], arch) == ERRNO | errno.EPERM, name
    clone, clone3 = _worker.SYS_CLONE[column], _worker.SYS_CLONE3[column]
    assert run_filter(program, clone3, arch) == ERRNO | errno.ENOSYS
    for flag in (_worker.CLONE_NEWUSER, _worker.CLONE_NEWNS, _worker.CLONE_NEWPID,
                 _worker.CLONE_NEWNET, _worker.CLONE_NEWCGROUP):
        assert run_filter(program, clone, arch, (flag | 17,)) == ERRNO | errno.EPERM, hex(flag)
    threads = 0x3D0F00  # what the C library passes for a new thread
    assert run_filter(program, clone, arch, (threads,)) == ALLOW
    assert run_filter(program, clone, arch, (17,)) == ALLOW  # fork
    refused = {n[column] for n in _worker.SECCOMP_REFUSED.values()} | {clone3}
    for nr in range(0, 460):
        if nr not in refused and nr != clone:
            assert run_filter(program, nr, arch) == ALLOW, nr
    assert run_filter(program, 39, AUDIT_I386) == KILL  # a 32-bit call into a 64-bit filter
    other = AUDIT["aarch64" if machine == "x86_64" else "x86_64"]
    assert run_filter(program, 0, other) == KILL


def test_the_x32_abi_is_killed_and_unknown_machines_get_no_program() -> None:
    program = _worker._seccomp_program("x86_64")
    assert program is not None
    assert run_filter(program, 0x40000000 | 39, AUDIT["x86_64"]) == KILL
    assert _worker._seccomp_program("riscv64") is None


def test_the_rlimit_fallback_fits_the_budget() -> None:
    for memory, pids in [(1 << 30, 64), (512 << 20, 32), (100 << 20, 64), (8 << 30, 4)]:
        nproc, space = memory_rlimits(Limits(memory_bytes=memory, pids=pids), None)
        assert 1 <= nproc <= pids and nproc * space <= memory
        assert space >= MIN_PROCESS_AS or nproc == 1
    assert memory_rlimits(Limits(memory_bytes=1 << 30, pids=64), None) == (4, 256 << 20)


# --------------------------------------------------------------------------- the verdict


class _Channel:
    def __init__(self, running: _Running, failure: Exception | None) -> None:
        self.running = running
        self.failure = failure

    def unexpected_input(self) -> bool:
        return False

    def request(self, message: dict[str, Any], deadline: float, *, decode: bool = True) -> Any:
        from derivative.forge.sandbox._channel import Response

        if message["op"] == "load":
            return Response(id=message["id"], ok=True)
        self.running.kills += 1  # the kernel killed a process of it meanwhile
        if self.failure is not None:
            raise self.failure
        return Response(id=message["id"], ok=True, raw_value=1, value=1)


class _Running:
    def __init__(self, failure: Exception | None) -> None:
        self.kills = 0
        self.channel = _Channel(self, failure)
        self.isolation = ("memory:cgroup-v1=1",)
        self.image_id = None
        self.started_monotonic = time.monotonic()
        self.killed = False

    def kill(self) -> None:
        self.killed = True

    def finish(self, timeout: float) -> int | None:
        return -9

    def diagnostics(self) -> str:
        return ""

    def oom_kills(self) -> int | None:
        return self.kills

    def pin(self, cpu: int) -> None:
        self.pinned = cpu


def _launcher(failure: Exception | None) -> Any:
    from derivative.forge.sandbox._sandbox import Launcher

    class FakeLauncher(Launcher):
        name = "process"

        def __init__(self) -> None:
            self.started: list[_Running] = []

        def launch(self, staged: Any, limits: Any, transcript: Any, deadline: float) -> Any:
            running = _Running(failure)
            self.started.append(running)
            return running

    return FakeLauncher()


@pytest.mark.parametrize("failure", [None, "ChannelClosed", "ChannelTimeout"])
def test_an_oom_kill_during_a_call_is_the_memory_verdict(
    tmp_path: Path, failure: str | None
) -> None:
    from derivative.forge.run import SandboxCaller
    from derivative.forge.sandbox import _channel, open_sandbox

    error = getattr(_channel, failure)("the worker went away") if failure else None
    candidate = tmp_path / "cand.py"
    candidate.write_text("def f(x):\n    return x\n", encoding="utf-8")
    launcher = _launcher(error)
    sandbox = open_sandbox(candidate, contract_sha256="0" * 64, launcher=launcher,
                           limits=Limits(memory_bytes=512 << 20))
    with sandbox:
        result = sandbox.call("f", [1])
        assert result.status == "out_of_memory", result
        assert "memory budget of 512 MiB" in result.detail
        assert launcher.started[0].killed, "the rest of the sandbox is killed"
        outcome = SandboxCaller(sandbox).call("f", [1])  # a fresh sandbox, the same fate
    assert outcome.raised is not None and outcome.raised.name == "SandboxOutOfMemory"
    assert len(launcher.started) == 2
    assert [r.ended for r in sandbox.receipts] == ["out_of_memory", "out_of_memory"]
