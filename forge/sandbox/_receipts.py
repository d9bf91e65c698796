"""Run receipts: what the host observed of one sandbox run (docs/build.md).

A receipt is written by the host process that started the sandbox and exchanged every frame
with it, never by the code under test: evidence is causally bound to execution (no receipt
without a run, no verdict without receipts).  One receipt covers one sandbox start: a call
that times out kills the sandbox, so a run that needed a fresh one has several receipts.

Fields beyond the documented ones (``isolation``, ``ended``, ``protocol_errors``) say how the
run was contained and how it ended; they are additions, the documented names are stable.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import secrets
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Ending = Literal["closed", "timeout", "run_timeout", "crashed", "out_of_memory", "protocol_error",
                 "start_failed", "guard_refused"]


class RunReceipt(BaseModel):
    """One sandbox start as the host saw it."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    run_id: str = Field(description="a fresh random nonce naming this sandbox start")
    backend: Literal["process", "docker"]
    image_id: str | None = Field(description="the Docker image id; null for the process backend")
    candidate_sha256: str = Field(description="digest of the staged candidate (candidate_digest)")
    contract_sha256: str = Field(description="identity of the contract the run was judged by")
    started_at: str = Field(description="UTC, ISO 8601, when the host started the sandbox")
    finished_at: str = Field(description="UTC, ISO 8601, when the host saw it end")
    exit_status: int | None = Field(
        description="the worker's exit code (negative: killed by that signal); null if unknown"
    )
    calls: int = Field(description="call, new_instance and method requests sent")
    transcript_sha256: str = Field(
        description="SHA-256 over every frame sent and received, in order (sandbox/_channel.py)"
    )
    isolation: tuple[str, ...] = Field(description="isolation features verified for this start")
    ended: Ending = Field(description="why the sandbox stopped")
    protocol_errors: int = Field(
        default=0, description="frames rejected as malformed, oversize or unrequested"
    )
    guard: bool = Field(
        default=False,
        description="whether the runner was asked to install the runtime guard (audit hook)")
    refusals: tuple[str, ...] = Field(
        default=(), description="what the runtime guard refused: 'EVENT (WHERE)'")
    layout: str | None = Field(
        default=None, description="where the candidate's folder was shown inside the sandbox")


def new_run_id() -> str:
    """A fresh random nonce (128 bits, hex)."""
    return secrets.token_hex(16)


def utc_now() -> str:
    """The current UTC time, ISO 8601 with microseconds."""
    return _dt.datetime.now(_dt.UTC).isoformat().replace("+00:00", "Z")


def candidate_digest(root: str | os.PathLike[str]) -> str:
    """SHA-256 of a staged candidate tree.

    Every regular file contributes its relative path (``/``-separated) and the SHA-256 of
    its bytes, in sorted path order, so the digest names exactly the code the sandbox saw.
    """
    base = Path(root)
    outer = hashlib.sha256()
    files = sorted(p for p in base.rglob("*") if p.is_file() and not p.is_symlink())
    for path in files:
        rel = path.relative_to(base).as_posix()
        outer.update(rel.encode("utf-8") + b"\0")
        outer.update(hashlib.sha256(path.read_bytes()).hexdigest().encode("ascii") + b"\n")
    return outer.hexdigest()
