"""The process sandbox's cgroups: ``pids.max`` and one memory budget for all its processes.

Why a cgroup and not only rlimits: RLIMIT_AS and RLIMIT_NPROC are limits *per process*,
so a sandbox allowed 64 processes of 1 GiB each may hold 64 GiB; a PID namespace does
not limit how many processes a fork bomb makes either.  A cgroup counts every process
of the sandbox together.  What is done here:

- a fresh cgroup is nested under this (the host) process's own cgroup in each hierarchy
  (v1 has one per controller, so the pids and memory directories differ; v2 has one
  directory for both), named ``derivative-<random>``, and removed when the sandbox ends;
- ``pids.max`` caps processes and threads together;
- the memory budget is ``memory.max`` with ``memory.swap.max`` = 0 (v2), or
  ``memory.limit_in_bytes`` with ``memory.memsw.limit_in_bytes`` equal to it (v1, where
  the kernel accounts swap; otherwise ``memory.swappiness`` = 0 and the evidence says
  that swap is not counted): swap must not stretch the budget;
- when the budget is exceeded the kernel's OOM killer kills a process of the cgroup and
  counts it (``oom_kill`` in ``memory.events`` or ``memory.oom_control``); the host
  reads that counter around every request, so the kill is reported as the candidate
  exceeding its memory, not as a crash of the sandbox;
- everything in the evidence is read back from the cgroup's own files, never taken from
  what was asked.

Nothing here writes ``cgroup.subtree_control``: enabling a controller for the host's own
cgroup would change the host, so where the controller is not already delegated to the
host's cgroup the sandbox does without it (and the process backend falls back to rlimits).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from pathlib import Path
from typing import Literal

Version = Literal["v1", "v2"]

_LIMIT_FILE = {("pids", "v1"): "pids.max", ("pids", "v2"): "pids.max",
               ("memory", "v1"): "memory.limit_in_bytes", ("memory", "v2"): "memory.max"}
_SWAP_FILE = {"v1": "memory.memsw.limit_in_bytes", "v2": "memory.swap.max"}
OOM_FILE = {"v1": "memory.oom_control", "v2": "memory.events"}


def cgroup_of(controller: str, pid: int | str = "self") -> tuple[Path, Version] | None:
    """The folder of ``controller``'s cgroup that process ``pid`` is in, and its version.

    A v1 hierarchy with that controller wins over the v2 one (a hybrid host binds the
    controllers to v1).  Paths come from ``/proc/PID/cgroup``, which shows them relative
    to the reader's cgroup root, the one its mount table names."""
    v1: Path | None = None
    v2: Path | None = None
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields = left.split()
                rest = right.split()
                if len(fields) < 5 or len(rest) < 3:
                    continue
                if rest[0] == "cgroup2":
                    v2 = Path(fields[4])
                elif rest[0] == "cgroup" and controller in rest[2].split(","):
                    v1 = Path(fields[4])
        with open(f"/proc/{pid}/cgroup", encoding="utf-8") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if v1 is not None and controller in controllers.split(","):
                    return v1 / path.lstrip("/"), "v1"
                if controllers == "" and v2 is not None and v1 is None:
                    return v2 / path.lstrip("/"), "v2"
    except (OSError, ValueError):
        return None
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


_OOM_FDS: dict[str, int] = {}
"""Open counter files by path: the host reads the counter around every call, and opening
the file each time cost ~50 us a call (a third of a round trip); ``pread`` at offset 0
regenerates a cgroup file's text without reopening it."""


def _pread_counter(path: str) -> str:
    fd = _OOM_FDS.get(path)
    try:
        if fd is None:
            fd = _OOM_FDS[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        return os.pread(fd, 4096, 0).decode("ascii", "replace")
    except OSError:
        forget_counter(path)
        return ""


def forget_counter(path: str) -> None:
    """Close the counter file of a cgroup that is going away."""
    fd = _OOM_FDS.pop(path, None)
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


def oom_kills_in(folder: Path, version: Version) -> int | None:
    """Processes the OOM killer has killed in the memory cgroup ``folder``; None when
    the counter cannot be read (the cgroup is gone, or the kernel predates it)."""
    for line in _pread_counter(str(folder / OOM_FILE[version])).splitlines():
        name, _, value = line.partition(" ")
        if name == "oom_kill" and value.strip().isdigit():
            return int(value)
    return None


class SandboxCgroup:
    """The cgroup folders of one sandbox, one per controller that could be limited."""

    def __init__(self, folders: dict[str, tuple[Path, Version]]) -> None:
        self.folders = folders
        """controller -> (its folder, the hierarchy's version); v2 shares one folder."""
        self.swap: Literal["none", "swappiness-0", "unaccounted"] = "unaccounted"

    @property
    def paths(self) -> list[Path]:
        """Every distinct folder (one on v2, one per controller on v1)."""
        return list(dict.fromkeys(folder for folder, _ in self.folders.values()))

    @property
    def memory_version(self) -> Version | None:
        """The hierarchy that holds the memory budget; None without one."""
        found = self.folders.get("memory")
        return found[1] if found else None

    @classmethod
    def create(cls, pids: int, memory: int | None) -> SandboxCgroup | None:
        """Fresh cgroups with ``pids.max`` and (unless None) the memory budget ``memory``,
        for each controller this process may nest a cgroup under; None when neither."""
        name = f"derivative-{secrets.token_hex(6)}"
        folders: dict[str, tuple[Path, Version]] = {}
        for controller in ("pids", "memory") if memory is not None else ("pids",):
            found = cgroup_of(controller)
            if found is None:
                continue
            path = found[0] / name
            try:
                path.mkdir(exist_ok=any(p == path for p, _ in folders.values()))
            except OSError:
                continue
            folders[controller] = (path, found[1])
        made = cls(folders)
        if "pids" in folders and not made._write("pids", str(pids)):
            made._drop("pids")
        if memory is not None and "memory" in folders and not made._limit_memory(memory):
            made._drop("memory")
        if not made.folders:
            return None
        return made

    def _write(self, controller: str, value: str, name: str | None = None) -> bool:
        folder, version = self.folders[controller]
        try:
            (folder / (name or _LIMIT_FILE[(controller, version)])).write_text(value)
            return True
        except OSError:
            return False

    def _limit_memory(self, memory: int) -> bool:
        """The budget, then swap: equal to it (v1 memsw counts memory and swap together) or
        none (v2); a kernel that does not account swap gets swappiness 0 instead."""
        version = self.memory_version
        assert version is not None
        if not self._write("memory", str(memory)):
            return False
        if self._write("memory", str(memory) if version == "v1" else "0", _SWAP_FILE[version]):
            self.swap = "none"
        elif version == "v1" and self._write("memory", "0", "memory.swappiness"):
            self.swap = "swappiness-0"
        return True

    def _drop(self, controller: str) -> None:
        folder, _ = self.folders.pop(controller)
        if folder not in self.paths:
            with contextlib.suppress(OSError):
                folder.rmdir()

    def add(self, pid: int) -> bool:
        """Move ``pid`` into every folder; a controller that refuses it is dropped."""
        for controller in list(self.folders):
            if not self._write(controller, str(pid), "cgroup.procs"):
                self._drop(controller)
        return bool(self.folders)

    def members(self) -> list[int]:
        found: dict[int, None] = {}
        for folder in self.paths:
            with contextlib.suppress(OSError, ValueError):
                found.update(dict.fromkeys(int(x) for x in _read(folder / "cgroup.procs").split()))
        return list(found)

    def contains(self, pid: int, controller: str) -> bool:
        """Whether ``pid`` is in ``controller``'s folder (read from the cgroup, not assumed)."""
        if controller not in self.folders:
            return False
        folder = self.folders[controller][0]
        return str(pid) in _read(folder / "cgroup.procs").split()

    def limit(self, controller: str) -> int | None:
        """The limit as the cgroup's own file states it (the kernel rounds to pages)."""
        if controller not in self.folders:
            return None
        folder, version = self.folders[controller]
        text = _read(folder / _LIMIT_FILE[(controller, version)])
        return int(text) if text.isdigit() else None

    def swap_counted(self) -> bool:
        """Whether swap cannot stretch the budget, read back: v1 memsw equal to the limit,
        v2 ``memory.swap.max`` 0."""
        version = self.memory_version
        if version is None:
            return False
        text = _read(self.folders["memory"][0] / _SWAP_FILE[version])
        return text == "0" if version == "v2" else text == str(self.limit("memory"))

    def oom_kills(self) -> int | None:
        """Processes of this sandbox killed for exceeding the budget so far."""
        found = self.folders.get("memory")
        return oom_kills_in(*found) if found else None

    def evidence(self, pid: int) -> list[str]:
        """What the host can state about ``pid``'s cgroups, read from their files."""
        found: list[str] = []
        pids = self.limit("pids")
        if pids is not None and self.contains(pid, "pids"):
            found.append(f"cgroup:pids.max={pids}")
        memory = self.limit("memory")
        if memory is not None and self.contains(pid, "memory"):
            found.append(f"memory:cgroup-{self.memory_version}={memory}")
            if self.swap_counted():
                found.append("swap:none")
            elif self.swap == "swappiness-0":
                found.append("swap:swappiness-0 (the kernel does not account swap)")
        return found

    def kill_all(self, rounds: int = 50) -> None:
        """SIGKILL every member until none is left (new forks fail against pids.max)."""
        for _ in range(rounds):
            pids = self.members()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)

    def remove(self) -> None:
        """Kill what is left and remove every folder (a dying process may hold one a
        moment longer)."""
        self.kill_all()
        found = self.folders.get("memory")
        if found is not None:
            forget_counter(str(found[0] / OOM_FILE[found[1]]))
        for folder in self.paths:
            for _ in range(100):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
