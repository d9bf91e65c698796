"""Where the compiled grammar is kept between processes, and when it may be trusted.

Compiling ``requirements.lark`` into LALR tables costs 0.1-0.2 s, and importing Lark
another 25 ms, more than the rest of ``derivative parse`` on a small file; a
command-line tool that runs in pre-commit hooks and editors would pay it on every
start.  The tables and callback shapes are kept as JSON (``_tables``), read without
Lark.  JSON runs no code, but tables written by someone else could change what a spec
parses to, so the file is used only when nobody else could have written it:

- it lives in a per-user directory (``$DERIVATIVE_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/derivative``, else ``~/.cache/derivative``), created mode 0700;
- the directory and the file must be owned by the current user and writable by
  no one else, and neither may be a symbolic link;
- the file name carries the SHA-256 of the grammar text, the tables' layout version
  and the Python version, so a changed grammar never meets an old table;
- a new file is written under a unique temporary name and renamed into place, so
  a concurrent process never reads half a file.

Anything else (no home, a read-only or foreign directory, ``DERIVATIVE_NO_CACHE``
set) compiles in memory as before: the cache only ever saves time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
from pathlib import Path

_ENV_DIR = "DERIVATIVE_CACHE_DIR"
_ENV_OFF = "DERIVATIVE_NO_CACHE"


def cache_dir() -> Path | None:
    """The per-user cache directory (not created here), or None when there is none."""
    if os.environ.get(_ENV_OFF):
        return None
    explicit = os.environ.get(_ENV_DIR)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "derivative"
    home = os.environ.get("HOME")
    if not home or not os.path.isabs(home):
        return None
    return Path(home) / ".cache" / "derivative"


def _private(st: os.stat_result, *, is_dir: bool) -> bool:
    """Owned by this user, of the expected kind, and not writable by group or others."""
    kind_ok = stat.S_ISDIR(st.st_mode) if is_dir else stat.S_ISREG(st.st_mode)
    return kind_ok and st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _ready_dir(path: Path) -> bool:
    """Create ``path`` (mode 0700) if missing; true when it is a private directory."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return _private(os.lstat(path), is_dir=True)
    except OSError:
        return False


def table_path(grammar: str, layout: str) -> tuple[Path, bool] | None:
    """The cache file for ``grammar`` and whether a trusted copy already exists.

    None: no usable directory (compile in memory).  ``(path, False)``: compile and
    store at ``path`` (via ``store``).  ``(path, True)``: load ``path``.
    """
    folder = cache_dir()
    if folder is None or not _ready_dir(folder):
        return None
    key = hashlib.sha256(
        "\0".join((grammar, layout, sys.version)).encode("utf-8")
    ).hexdigest()[:32]
    path = folder / f"grammar-{key}.tables.json"
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path, False
    except OSError:
        return None
    if not _private(st, is_dir=False):
        return None  # someone else's file, or a link: never load it, never overwrite it
    return path, True


def temporary_for(path: Path) -> Path:
    """A unique sibling name to write a new table under before ``store`` renames it."""
    return path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")


def store(tmp: Path, path: Path) -> None:
    """Move a freshly written table into place (atomic), or drop it if that fails."""
    try:
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
