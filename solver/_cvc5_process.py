"""cvc5 behind a process boundary: a crash is an ``unknown``, never a dead tool.

cvc5 segfaults on some questions (a quantified question over lists of strings, measured:
``derivative check`` died with exit 139). In process, that kills ``check``, ``run`` and
``build`` with no report. So every cvc5 question goes to one long-lived child process per
process (``_cvc5_child.py``, stdlib and cvc5 only), over JSON lines: starting it costs
once (about 0.1 s), each question only its solving. When the child dies, the question it
was on is answered ``unknown`` with the signal named, and the next question starts a new
child. The child's answers are data (verdicts and values), never trusted beyond what the
callers already re-check.

The deterministic resource limit (``rlimit-per``) decides as before; cvc5's own wall
clock (``tlimit-per``) is the safety net and is reported as ``timeout``; this side waits
that long plus a margin, then kills the child (``OperationalTimeout``).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from dataclasses import field
from datetime import date
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from derivative._errors import OperationalTimeout
from derivative._record import record
from derivative._types import TAny, TBool, TDate, TEnum, TInt, TList, TReal, TStr, Ty
from derivative._values import EnumValue

if TYPE_CHECKING:
    import subprocess

# ``subprocess``, ``select`` and ``signal`` are imported where the child is started and
# read: most checks never ask cvc5, and start-up is the feature (docs/decisions.md).

CHILD = Path(__file__).with_name("_cvc5_child.py")
MARGIN_SECONDS = 60.0
"""How long past cvc5's own wall-clock limit this side waits before killing the child."""


@record(frozen=False)
class Reply:
    """cvc5's answer: ``sat`` (with wire ``values``), ``unsat``, ``unknown`` (``why``), or
    ``crashed`` / ``error`` (``why`` says what)."""

    verdict: str
    why: str = ""
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def timeout(self) -> bool:
        return self.verdict == "unknown" and self.why.rsplit(".", 1)[-1] == "TIMEOUT"


class _Child:
    """The one child process of this process, started on first use."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.argv: list[str] = [sys.executable, "-I", str(CHILD)]

    def _start(self) -> subprocess.Popen[bytes]:
        import subprocess

        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         close_fds=True)
        return self.proc

    def ask(self, request: dict[str, Any], wait_seconds: float) -> Reply:
        with self.lock:
            proc = self._start()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write((json.dumps(request) + "\n").encode())
                proc.stdin.flush()
                line = _read_line(proc, wait_seconds)
            except OSError:
                line = b""
            if not line:
                return self._crashed(proc)
            reply = json.loads(line)
        if "error" in reply:
            return Reply("error", str(reply["error"]))
        return Reply(str(reply["verdict"]), str(reply.get("why", "")),
                     dict(reply.get("values", {})))

    def _crashed(self, proc: subprocess.Popen[bytes]) -> Reply:
        import signal
        import subprocess

        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        self.proc = None
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return Reply("crashed", f"cvc5 crashed ({name})")
        return Reply("crashed", f"cvc5's process ended with exit code {code}")


def _read_line(proc: subprocess.Popen[bytes], wait_seconds: float) -> bytes:
    """The child's next line; b"" when it died; the child killed after ``wait_seconds``."""
    import select

    assert proc.stdout is not None
    deadline = time.monotonic() + wait_seconds
    fd = proc.stdout.fileno()
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            proc.kill()
            proc.wait()
            raise OperationalTimeout(
                f"cvc5 gave no answer within {wait_seconds:g} s, past its own wall-clock "
                "limit: the machine is overloaded or cvc5 hangs; run it again")
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b""
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            return b"".join(chunks)


_CHILD = _Child()


def ask(script: str, *, options: list[tuple[str, str]], symbols: list[str],
        timeout_ms: int, logic: str | None = None) -> Reply:
    """Decide ``script`` (its ``check-sat`` skipped, one check made) in the cvc5 child."""
    request = {"script": script, "options": [list(o) for o in options], "logic": logic,
               "symbols": symbols}
    return _CHILD.ask(request, timeout_ms / 1000 + MARGIN_SECONDS)


def value_of(wire: Any, ty: Ty) -> object:
    """A wire value from the child as a language value of ``ty`` (``ValueError`` for
    anything else)."""
    kind, data = wire[0], wire[1]
    if isinstance(ty, TBool) and kind == "b":
        return bool(data)
    if isinstance(ty, (TInt, TAny)) and kind == "i":
        return int(data)
    if isinstance(ty, TDate) and kind == "i":
        return date.fromordinal(int(data))
    if isinstance(ty, TReal) and kind in ("q", "i"):
        return Fraction(data)
    if isinstance(ty, TStr) and kind == "s":
        return str(data)
    if isinstance(ty, TEnum):
        # Constants are named ``Enum.member`` (``Enum!2.member`` when names clash).
        member = str(data).strip("|").rsplit(".", 1)[-1]
        if member in ty.members:
            return EnumValue(ty.name, member)
    if isinstance(ty, TList) and kind == "seq":
        return tuple(value_of(w, ty.elem) for w in data)
    raise ValueError(f"cannot read {wire!r} as {ty.show()}")
