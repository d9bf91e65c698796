"""Reading an input file named by a path: only regular files, and only up to a size.

Every spec (named on the command line or reached by ``use``), certificate and posture
policy is read through ``read_regular_file``.  A path may name something that is not a
file at all: ``/dev/zero`` and ``/dev/urandom`` never end, so reading them fills the
memory; a FIFO blocks on ``open`` until a writer comes, and on ``read`` until it closes.
None of them can be a spec, so the rule is simple: the path must name a regular file
(symbolic links are followed: what is checked is the file that is opened), no larger
than the limit of its kind.  The check is made twice: ``stat`` before opening, so that a
device or FIFO is never even opened, and ``fstat`` on the opened descriptor, so that a
path swapped between the two calls is still caught.  The descriptor is opened with
``O_NONBLOCK``, so swapping in a FIFO cannot make ``open`` wait, and the read stops one
byte past the limit, so a file that grows while it is read cannot exhaust the memory.

Files the tool writes for people to keep and share (a certificate, a generated test
module) go through ``write_atomically``: a temporary file in the same folder, then a
rename, so that a reader never sees half a file.  ``tempfile.mkstemp`` makes the
temporary file ``0600`` whatever the umask, which would leave a certificate that
"anyone can re-check" readable by its writer alone; the file is given the mode a plain
``open(path, "w")`` would have given it, ``0666`` less the umask.

What is refused is a ``FileRefused`` (a ``UsageError``, exit 2) whose ``reason`` says
why in a few words, so that a caller can put it at a better place (the loader points at
the ``use`` line that named the file).  The limits are documented in docs/cli.md
("Input files").
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Final

from ._errors import UsageError

__all__ = [
    "MAX_CERTIFICATE_BYTES",
    "MAX_POLICY_BYTES",
    "MAX_SPEC_BYTES",
    "FileRefused",
    "file_mode",
    "read_regular_file",
    "size_text",
    "write_atomically",
]

MAX_SPEC_BYTES: Final = 16 * 1024 * 1024
"""The largest spec file read (16 MiB: a 10,000-requirement spec is about 1 MiB)."""

MAX_CERTIFICATE_BYTES: Final = 64 * 1024 * 1024
"""The largest certificate read (64 MiB: cvc5's proof text is the bulk of a large one)."""

MAX_POLICY_BYTES: Final = 4 * 1024 * 1024
"""The largest posture policy file read (4 MiB: the shipped default is about 28 KiB)."""

_CHUNK = 1 << 20


class FileRefused(UsageError):
    """A path that cannot be read as an input file; ``reason`` says why, without the path."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def size_text(n: int) -> str:
    """A byte count as people read it: ``16 MiB``, ``512 KiB`` or ``300 bytes``."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"


def _kind(mode: int) -> str:
    """What a non-regular file is, in the words of ``ls``."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _check(path: str, mode: int, size: int, limit: int, what: str) -> None:
    if not stat.S_ISREG(mode):
        kind = _kind(mode)
        prefix = "" if kind.startswith("not ") else "is "
        raise FileRefused(path, f"{prefix}{kind}, not a {what} file: only regular files are read")
    if size > limit:
        raise FileRefused(
            path, f"is {size_text(size)}, larger than the {size_text(limit)} a {what} file may be"
        )


def _reason(err: OSError) -> str:
    return err.strerror or type(err).__name__


def read_regular_file(path: str | os.PathLike[str], *, limit: int, what: str) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    ``what`` names the kind of file in messages (``spec``, ``certificate``).  Raises
    ``FileRefused`` for anything else: a missing or unreadable path, a directory, a
    device, a FIFO or a socket, or a file larger than ``limit``.
    """
    shown = os.fspath(path)
    try:
        before = os.stat(shown)
    except OSError as err:
        raise FileRefused(shown, f"cannot be read: {_reason(err)}") from None
    _check(shown, before.st_mode, before.st_size, limit, what)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(shown, flags)
    except OSError as err:
        raise FileRefused(shown, f"cannot be read: {_reason(err)}") from None
    try:
        opened = os.fstat(fd)
        _check(shown, opened.st_mode, opened.st_size, limit, what)
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as err:
        raise FileRefused(shown, f"cannot be read: {_reason(err)}") from None
    finally:
        os.close(fd)
    if total > limit:
        raise FileRefused(shown, f"is larger than the {size_text(limit)} a {what} file may be")
    return b"".join(chunks)


def _umask() -> int:
    """The process's umask, read without changing it where the system says it
    (``/proc/self/status``), else by setting it and putting it back at once."""
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii", errors="replace") as status,
    ):
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode of a new file, as ``open(path, "w")`` makes it: ``0666`` less the umask."""
    return 0o666 & ~_umask()


def write_atomically(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    The file gets ``file_mode()`` (mkstemp's ``0600`` is for secrets, and these files are
    not).  ``UsageError`` when the folder does not exist.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"cannot write {os.fspath(path)}: no such folder {folder}")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), file_mode())
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target
