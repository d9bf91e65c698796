"""A build's hold on its folder, and how to tell later whether the build's process is gone.

Why a lock file: recovery must never call a running build "interrupted". An ``flock`` on
``FOLDER/.build.lock`` is held for the build's life and released by the kernel however the
process ends (``SIGKILL`` included), and a reused process id cannot fake it. Whoever can take
the lock knows no live build holds the folder, and holding it while recovering also keeps two
recoveries of the same folder apart.

The process id, its start time (``/proc/PID/stat`` field 22, in clock ticks since boot), the
boot id, the host and the lock file's inode are journalled too: when the folder or its lock
file is gone or was replaced, the process itself is the only witness left.
"""

from __future__ import annotations

import fcntl
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

LOCK_FILE = ".build.lock"
_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


@dataclass(frozen=True)
class ProcessMark:
    """Enough about a build's process to recognise it, or its absence, later."""

    pid: int
    proc_start: str | None
    boot_id: str | None
    host: str
    lock_dev: int | None
    lock_ino: int | None


class BuildLease:
    """An exclusive ``flock`` on a folder's lock file; released on ``release`` or exit."""

    def __init__(self, path: Path, fd: int | None, build_id: str) -> None:
        self.path = path
        self.build_id = build_id
        self._fd = fd

    @classmethod
    def try_take(cls, folder: Path, build_id: str) -> BuildLease | None:
        """Take the folder's lock without waiting; None when a live holder has it."""
        path = folder / LOCK_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, build_id)

    @classmethod
    def nothing(cls, folder: Path, build_id: str) -> BuildLease:
        """A lease on a folder that no longer exists: nothing to hold."""
        return cls(folder / LOCK_FILE, None, build_id)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def identity(self) -> tuple[int, int] | None:
        """The lock file's (device, inode), so recovery can tell it was not replaced."""
        if self._fd is None:
            return None
        st = os.fstat(self._fd)
        return st.st_dev, st.st_ino

    def release(self) -> None:
        """Let go of the folder (idempotent)."""
        if _HELD.get(self.build_id) is self:
            del _HELD[self.build_id]
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the last descriptor releases the flock

    def __enter__(self) -> BuildLease:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


# Leases of builds running in this process, so dropping the object ``begin`` returned does
# not close the descriptor (and free the folder) while the build is still going.
_HELD: dict[str, BuildLease] = {}


def hold(lease: BuildLease) -> BuildLease:
    """Keep a running build's lease alive until ``release_held``."""
    _HELD[lease.build_id] = lease
    return lease


def release_held(build_id: str) -> None:
    """Release the lease this process holds for a build, if any."""
    lease = _HELD.pop(build_id, None)
    if lease is not None:
        lease.release()


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) of a process from ``/proc``, or None when there is no such entry."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    after = text[text.rindex(")") + 2 :].split()  # the name may hold spaces and parentheses
    return after[0], after[19]  # fields 3 (state) and 22 (starttime)


def _boot_id() -> str | None:
    try:
        return _BOOT_ID.read_text(encoding="ascii").strip() or None
    except OSError:
        return None


def current_mark(lease: BuildLease) -> ProcessMark:
    """This process, as the journal records it for a build holding ``lease``."""
    pid = os.getpid()
    stat = _proc_stat(pid)
    ident = lease.identity()
    return ProcessMark(
        pid=pid,
        proc_start=None if stat is None else stat[1],
        boot_id=_boot_id(),
        host=socket.gethostname(),
        lock_dev=None if ident is None else ident[0],
        lock_ino=None if ident is None else ident[1],
    )


def is_local(mark: ProcessMark) -> bool:
    """Whether the build ran on this machine (another machine's processes are not ours to judge)."""
    return mark.host == socket.gethostname()


def lock_is_original(folder: Path, mark: ProcessMark) -> bool:
    """Whether ``folder``'s lock file is the very one the build locked (same device and inode)."""
    try:
        st = os.stat(folder / LOCK_FILE)
    except OSError:
        return False
    return mark.lock_ino is not None and (st.st_dev, st.st_ino) == (mark.lock_dev, mark.lock_ino)


def process_gone(mark: ProcessMark) -> bool:
    """Whether the build's process has ended: a new boot, no such pid, a zombie, or a pid
    reused by a process that started at another time."""
    boot = _boot_id()
    if mark.boot_id and boot and boot != mark.boot_id:
        return True
    stat = _proc_stat(mark.pid)
    if stat is not None:
        state, start = stat
        if state in ("Z", "X"):
            return True
        return mark.proc_start is not None and start != mark.proc_start
    if Path("/proc/self/stat").exists():
        return True  # /proc works and has no entry for the pid
    try:
        os.kill(mark.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
