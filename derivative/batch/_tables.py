"""The batch's records: the results table (JSON Lines and CSV) and the one ledger writer.

Each result is written the moment it arrives: a line of ``results.jsonl`` and a row of
``results.csv``, flushed and synced, then its build's ledger record appended to the ledger
(the driver is the only process that opens it for writing). A batch killed half-way leaves
every result reported so far on disk and in the ledger; ``summary.json`` is written last
and only by a batch that finished.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TextIO

from derivative._version import __version__

from ._manifest import Manifest

BATCH_RESULT_FORMAT: Final = "derivative.batch-result/v1"
CSV_COLUMNS: Final = (
    "index", "id", "status", "reason", "exit_code", "tries", "spec_name", "spec_version",
    "source", "build_id", "candidate_sha256", "attempts", "package", "folder", "seconds",
    "wall_seconds", "worker_pid",
)
"""The columns of ``results.csv`` (``results.jsonl`` carries the same and the nested
``spec``)."""


def _utc(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds") \
        .replace("+00:00", "Z")


class ResultTables:
    """``results.jsonl``, ``results.csv`` and the ledger, written as results arrive."""

    def __init__(self, folder: Path, *, manifest: Manifest, state: str | None,
                 specs: dict[tuple[str, ...], dict[str, Any]] | None = None) -> None:
        from derivative.forge.build import Ledger, default_state_dir

        self.folder = folder
        self.manifest = manifest
        self.specs = specs or {}
        self.ledger = Ledger(Path(state) if state else default_state_dir())
        self._jsonl: TextIO = open(folder / "results.jsonl", "w", encoding="utf-8")  # noqa: SIM115
        self._csv_file: TextIO = open(folder / "results.csv", "w", encoding="utf-8",  # noqa: SIM115
                                      newline="")
        self._csv = csv.DictWriter(self._csv_file, fieldnames=CSV_COLUMNS,
                                   extrasaction="ignore")
        self._csv.writeheader()

    def record(self, row: dict[str, Any]) -> None:
        """Publish one result: its ledger record first (the claim), then the table lines."""
        spec = row.get("spec") or self.specs.get(self._task_spec(row["index"]))
        row["spec"] = spec
        row["format"] = BATCH_RESULT_FORMAT
        self._ledger(row)
        record = row.pop("record", None)
        row["recorded"] = record is not None or row["status"] == "interrupted"
        self._jsonl.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
        flat = {**row, "spec_name": spec["name"] if spec else None,
                "spec_version": spec["version"] if spec else None}
        self._csv.writerow(flat)
        for f in (self._jsonl, self._csv_file):
            f.flush()
            os.fsync(f.fileno())

    def _task_spec(self, index: int) -> tuple[str, ...]:
        return self.manifest.tasks[index].spec

    def _ledger(self, row: dict[str, Any]) -> None:
        from derivative.forge.build import LedgerRecord

        record = row.get("record")
        if record is not None:
            self.ledger.append_if_absent(LedgerRecord(**record))
        elif row["status"] == "interrupted" and row.get("spec"):
            spec = row["spec"]
            task = self.manifest.tasks[row["index"]]
            build_id = secrets.token_hex(8)
            row["build_id"] = build_id
            self.ledger.append_if_absent(LedgerRecord(
                build_id=build_id, candidate_sha256=None, contract_name=spec["name"],
                contract_version=spec["version"], contract_sha256=spec["sha256"],
                status="interrupted", reason=row["reason"], started_at=_utc(row["submitted"]),
                finished_at=_utc(row["received"]), folder=row["folder"], package=None,
                package_sha256=None, policy=task.policy, enforced=False,
                tool_version=__version__))

    def close(self) -> None:
        self._jsonl.close()
        self._csv_file.close()

    def write_summary(self, seconds: float, workers: int, scheduler: str,
                      counts: dict[str, int]) -> None:
        """``summary.json``: written last, so its presence says the batch finished."""
        doc = {"format": "derivative.batch-summary/v1", "manifest": str(self.manifest.path),
               "tasks": len(self.manifest.tasks), "counts": counts,
               "seconds": round(seconds, 3), "workers": workers, "scheduler": scheduler,
               "tool": {"name": "derivative", "version": __version__},
               "finished_at": _utc(datetime.now(UTC).timestamp())}
        tmp = self.folder / ".summary.json.tmp"
        tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.folder / "summary.json")
