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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from derivative._errors import UsageError

from ._publish import fsync_dir, write_atomic


def canonical_bytes(doc: Any) -> bytes:
    """The bytes every build file is written as: sorted keys, two-space indent, newline."""
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


class BuildFolder:
    """One build's folder and the digests of what has been written to it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.digests: dict[str, str] = {}
        self._unsynced: set[Path] = set()

    @staticmethod
    def refuse_occupied(path: Path) -> None:
        """Refuse a path that exists and is not an empty folder (writes nothing)."""
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise UsageError(f"build folder {path} already exists and is not empty: "
                             "choose another --out")

    @classmethod
    def create(cls, path: Path) -> BuildFolder:
        """A new, empty build folder (an existing folder with files in it is refused)."""
        cls.refuse_occupied(path)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create build folder {path}: {exc.strerror}") from exc
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
        write_atomic(target, data, sync_dir=False)
        folder = target.parent
        while True:  # new subfolders are names in their parents too
            self._unsynced.add(folder)
            if folder == self.path or folder.parent == folder:
                break
            folder = folder.parent
        digest = hashlib.sha256(data).hexdigest()
        self.digests[name] = digest
        return digest

    def sync(self) -> None:
        """Make every name written so far durable: one sync per folder, not per file (the
        files themselves were synced as they were written). Called before the ledger
        commit, the point after which the build's evidence must survive a crash."""
        for folder in sorted(self._unsynced, key=lambda p: len(p.parts), reverse=True):
            fsync_dir(folder)
        self._unsynced.clear()
