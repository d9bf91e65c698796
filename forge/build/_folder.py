"""The build folder: every file written atomically, each naming the digests it depends on.

The folder is a chain that can be replayed and audited: ``build_spec.json`` is written
before any candidate is read, and every later file carries ``depends_on`` — the SHA-256 of
the files it was derived from — so editing one breaks the chain visibly. Files are written
to a temporary name, flushed to disk and renamed, so a build killed at any point leaves
either the old file or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def canonical_bytes(doc: Any) -> bytes:
    """The bytes every build file is written as: sorted keys, two-space indent, newline."""
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class BuildFolder:
    """One build's folder and the digests of what has been written to it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.digests: dict[str, str] = {}

    @classmethod
    def create(cls, path: Path) -> BuildFolder:
        path.mkdir(parents=True, exist_ok=False)
        return cls(path.resolve())

    def write_json(self, name: str, doc: dict[str, Any], depends: Sequence[str] = ()) -> str:
        """Write ``doc`` (with ``depends_on``) as ``name``; returns its SHA-256."""
        missing = [d for d in depends if d not in self.digests]
        if missing:  # pragma: no cover - a bug guard: the chain must be complete
            raise AssertionError(f"{name} depends on files not written yet: {missing}")
        body = {**doc, "depends_on": {d: self.digests[d] for d in depends}}
        return self.write_bytes(name, canonical_bytes(body))

    def write_bytes(self, name: str, data: bytes) -> str:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data)
        digest = hashlib.sha256(data).hexdigest()
        self.digests[name] = digest
        return digest
