"""A blind round on disk: its cases, and the manifest that freezes them.

A round is ``rounds/<name>/``: ``cases/<id>/`` folders (``case.json``, the spec files, the
candidates, the external oracle) and, once frozen, ``manifest.json``: the case list, the
SHA-256 of every file, the date and the tool's commit. Freezing happens before the first
run; a round whose files differ from its manifest in any way (a file changed, added or
removed) is no longer the round that was frozen, and refuses to run at all.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROUNDS = Path(__file__).resolve().parent / "rounds"
REPO = Path(__file__).resolve().parents[2]
MANIFEST_FORMAT = "derivative.blind-round/v1"
STATUSES = ("verified", "validation_failed", "infeasible_proven")
TOOL_PATHS = ("derivative", "forge", "solver", "grammar", "certificates", "pyproject.toml")
"""What counts as "the tool" when deciding whether a run is still blind."""


class RoundError(Exception):
    """A round that cannot be frozen or run as asked (the message says why)."""


@dataclass(frozen=True)
class Candidate:
    path: str
    module: str
    expected: str
    why: str


@dataclass(frozen=True)
class Case:
    id: str
    folder: Path
    domain: str
    summary: str
    spec: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    oracle: str | None


def round_dir(name: str) -> Path:
    path = ROUNDS / name
    if not (path / "cases").is_dir():
        raise RoundError(f"no round {name!r} (expected {path}/cases/)")
    return path


def read_cases(root: Path) -> list[Case]:
    """Every case of the round, checked for the shape the runner relies on."""
    cases = []
    for folder in sorted(p for p in (root / "cases").iterdir() if p.is_dir()):
        doc = json.loads((folder / "case.json").read_text(encoding="utf-8"))
        if doc.get("id") != folder.name:
            raise RoundError(f"{folder}/case.json: id {doc.get('id')!r} is not the folder name")
        cands = tuple(Candidate(c["path"], c["module"], c["expected"], c.get("why", ""))
                      for c in doc["candidates"])
        for c in cands:
            if c.expected not in STATUSES:
                raise RoundError(f"{folder.name}: expected {c.expected!r} is not one of "
                                 f"{', '.join(STATUSES)}")
            if not (folder / c.path).is_file():
                raise RoundError(f"{folder.name}: candidate {c.path} is missing")
        oracle = doc.get("oracle")
        if oracle is None and any(c.expected != "infeasible_proven" for c in cands):
            raise RoundError(f"{folder.name}: a case with a feasible contract needs an oracle")
        cases.append(Case(folder.name, folder, doc["domain"], doc["summary"],
                          tuple(doc["spec"]), cands, oracle))
    if not cases:
        raise RoundError(f"round {root.name} has no cases")
    return cases


def file_digests(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``cases/``, by path relative to the round."""
    out = {}
    for p in sorted((root / "cases").rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              timeout=60, check=False)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def freeze(name: str) -> dict[str, Any]:
    """Write ``manifest.json`` for a round that has none; refuse to re-freeze."""
    root = round_dir(name)
    target = root / "manifest.json"
    if target.exists():
        raise RoundError(f"round {name} is frozen already ({target}); a changed round is a "
                         "new round: copy it to a new name")
    cases = read_cases(root)
    doc = {
        "format": MANIFEST_FORMAT, "round": name,
        "frozen_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "tool_commit": git("rev-parse", "HEAD"),
        "cases": [{"id": c.id, "domain": c.domain,
                   "expected": [k.expected for k in c.candidates]} for c in cases],
        "files": file_digests(root),
    }
    target.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return doc


def check_frozen(name: str) -> dict[str, Any]:
    """The round's manifest, after checking every file against it."""
    root = round_dir(name)
    target = root / "manifest.json"
    if not target.is_file():
        raise RoundError(f"round {name} is not frozen: run `python -m benchmarks.blind freeze "
                         f"{name}` before its first run")
    doc: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
    now = file_digests(root)
    frozen: dict[str, str] = doc["files"]
    changed = sorted(p for p in frozen.keys() & now.keys() if frozen[p] != now[p])
    added = sorted(now.keys() - frozen.keys())
    removed = sorted(frozen.keys() - now.keys())
    if changed or added or removed:
        parts = [f"{what}: {', '.join(ps[:5])}{' ...' if len(ps) > 5 else ''}"
                 for what, ps in (("changed", changed), ("added", added),
                                  ("removed", removed)) if ps]
        raise RoundError(f"round {name}'s files differ from its frozen manifest ("
                         + "; ".join(parts) + "): it is not the round that was frozen and "
                         "cannot run as blind or as a replay")
    return doc


def run_label(name: str, doc: dict[str, Any]) -> tuple[str, str]:
    """``("blind", why)`` for the first run at the frozen tool, else ``("replay", why)``."""
    root = round_dir(name)
    if (root / "results" / "blind.json").exists():
        return "replay", "this round has a blind result already: every later run is a replay"
    frozen = doc.get("tool_commit")
    if frozen is None:
        return "replay", "the manifest names no tool commit to compare with"
    same = subprocess.run(["git", "diff", "--quiet", frozen, "--", *TOOL_PATHS], cwd=REPO,
                          check=False, capture_output=True).returncode
    if same != 0:
        return "replay", f"the tool changed since the round was frozen at {frozen[:12]}"
    return "blind", f"first run, tool as frozen at {frozen[:12]}"
