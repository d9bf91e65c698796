"""Audit memory: one structured record for every top-level call (``check``, ``run``, ``build``).

A caller that wants to remember what the tool was asked and what it answered subscribes a
callback (``subscribe(fn) -> id``, ``unsubscribe(id)``) or, on the command line, names a
file with ``--events FILE`` (JSON lines). Three rules shape it:

- **nothing is built without a subscriber**: ``audited`` checks for subscribers before it
  computes a record, so an unobserved call pays one dictionary lookup;
- **exactly one record per top-level call**: a call made while another audited call is in
  progress (``build`` runs ``check`` and ``run`` internally) emits nothing, so nested work
  is never counted twice;
- **a refused call emits its refusal**: a call that raises (bad input, say) still emits a
  record whose outcome is ``error`` with the message, and the exception goes on.

A record holds the operation, the contract identity, the exact source of every candidate
file that executed (not just its digest: an auditor must be able to read what ran), the
outcome and the time. A subscriber that raises is removed from the call's delivery and
reported to no one: auditing must never change a verdict.
"""

from __future__ import annotations

import contextvars
import datetime as _dt
import hashlib
import itertools
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

__all__ = ["AuditCall", "audited", "emit_to", "subscribe", "subscribers", "unsubscribe"]

Subscriber = Callable[[dict[str, Any]], None]

_lock = threading.Lock()
_subscribers: dict[int, Subscriber] = {}
_ids = itertools.count(1)
_active: contextvars.ContextVar[bool] = contextvars.ContextVar("derivative_audit", default=False)


def subscribe(fn: Subscriber) -> int:
    """Deliver every future top-level record to ``fn``; returns the id to unsubscribe."""
    with _lock:
        sid = next(_ids)
        _subscribers[sid] = fn
    return sid


def unsubscribe(sid: int) -> bool:
    """Stop delivering to subscription ``sid``; whether it existed."""
    with _lock:
        return _subscribers.pop(sid, None) is not None


def subscribers() -> int:
    """How many subscriptions are active."""
    return len(_subscribers)


def _utc() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat().replace("+00:00", "Z")


class AuditCall:
    """What one audited call fills in while it runs; turned into the record at its end."""

    def __init__(self, operation: str) -> None:
        self.operation = operation
        self.started_at = _utc()
        self.contract: dict[str, Any] | None = None
        self.candidates: list[dict[str, Any]] = []
        self.outcome: dict[str, Any] = {}

    def about(self, contract: Callable[[], dict[str, Any]]) -> None:
        """Record the contract the call is about, computed only if the call is observed
        (its identity hashes the whole contract: a tenth of a second at 10,000
        requirements)."""
        self.contract = contract()

    def executed(self, files: Mapping[str, bytes]) -> None:
        """Record candidate files that ran (their exact source, UTF-8 where it decodes)."""
        for name, data in sorted(files.items()):
            try:
                text: str | None = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            self.candidates.append({
                "path": name,
                "sha256": hashlib.sha256(data).hexdigest(),
                "source": text,
            })

    def record(self) -> dict[str, Any]:
        return {
            "format": "derivative.event/v1",
            "operation": self.operation,
            "contract": self.contract,
            "candidates": self.candidates,
            "outcome": self.outcome,
            "started_at": self.started_at,
            "finished_at": _utc(),
        }


class _Silent(AuditCall):
    """The call object of an unobserved or nested call: it records nothing."""

    def about(self, contract: Callable[[], dict[str, Any]]) -> None:
        return None

    def executed(self, files: Mapping[str, bytes]) -> None:
        return None


@contextmanager
def audited(operation: str) -> Iterator[AuditCall]:
    """Wrap one top-level call; emits its record at the end (or its refusal on a raise)."""
    if _active.get() or not _subscribers:
        token = _active.set(True)
        try:
            yield _Silent(operation)
        finally:
            _active.reset(token)
        return
    call = AuditCall(operation)
    token = _active.set(True)
    try:
        yield call
    except BaseException as exc:
        call.outcome = {"status": "error", "error": type(exc).__name__, "message": str(exc)}
        raise
    finally:
        _active.reset(token)
        _deliver(call.record())


def _deliver(record: dict[str, Any]) -> None:
    with _lock:
        targets = list(_subscribers.values())
    for fn in targets:
        try:
            fn(record)
        except Exception:  # auditing never changes a verdict
            continue


@contextmanager
def emit_to(path: str) -> Iterator[None]:
    """Append every record of the calls inside to ``path`` as JSON lines (``--events``).

    The file is opened (and created) before the calls run: a place that cannot be written is
    bad input (``UsageError``), not an audit record lost without a word.
    """
    import json

    from derivative._errors import UsageError

    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"--events: cannot write {path}: {exc.strerror or exc}") from None

    def write(record: dict[str, Any]) -> None:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")

    sid = subscribe(write)
    try:
        yield
    finally:
        unsubscribe(sid)
