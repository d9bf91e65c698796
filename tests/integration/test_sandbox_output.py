"""A chatty but correct candidate passes, on every backend.

The worker bounds what the candidate's ``sys.stdout`` and ``sys.stderr`` forward
(``Limits.output_bytes``, 1 MiB in all by default) and drops the rest, counting it.
Before, the process backend's log under RLIMIT_FSIZE made ``print`` raise ``OSError``
(EFBIG) once a candidate had printed 16 MiB, failing correct calls; and on Docker
everything printed crossed the attach stream to the host.  The descriptors keep their
own limits: a candidate writing to fd 1 itself still meets RLIMIT_FSIZE.
"""

from __future__ import annotations

import errno
import os
import re
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from derivative.api import parse_text
from derivative.forge.run import SandboxCaller
from derivative.forge.sandbox._process import ProcessLauncher
from derivative.forge.sandbox._sandbox import Launcher, Limits, Sandbox, open_sandbox
from derivative.forge.testing import Engine, EngineOptions
from derivative.solver._boundary import clear_cache

pytestmark = pytest.mark.slow

Make = Callable[..., Sandbox]

CHATTY = """
import sys

LINE = "chatter " * 12

def f(x):
    for _ in range(2500):          # about 240 KB of print() a call
        print(LINE, x)
    sys.stderr.write("e" * 20_000)
    sys.stdout.buffer.write(b"b" * 20_000)
    sys.stdout.flush()
    return x + 1

def chatter(megabytes):
    block = "z" * 65536
    for _ in range(megabytes * 16):
        print(block, end="")
        print(block, file=sys.stderr, end="")
    return megabytes
"""

SPEC = """\
spec chatty version 1
function f(x: int) -> int
    requires: x >= 0 and x <= 1000
    ensures plus_one: result == x + 1
"""


def _log_size(sb: Sandbox) -> int:
    """Bytes in the process backend's log of the current sandbox."""
    assert sb._current is not None
    log = sb._current.running.log  # type: ignore[attr-defined]
    log.flush()
    return int(os.fstat(log.fileno()).st_size)


def _output_crossed(sb: Sandbox) -> int:
    """What the candidate's output cost the host: the log's size (process backend) or
    the bytes of stderr that crossed the attach stream (Docker)."""
    assert sb._current is not None
    transport = getattr(sb._current.running, "transport", None)
    if sb.backend == "docker":
        return int(transport.stderr_bytes)  # type: ignore[union-attr]
    return _log_size(sb)


def test_a_chatty_correct_candidate_passes_the_engine(
    launcher: Launcher, write_candidate: Callable[..., Path]
) -> None:
    clear_cache()
    info = parse_text(SPEC).types
    options = EngineOptions(examples=200)
    started = time.monotonic()
    with open_sandbox(write_candidate(CHATTY), contract_sha256="0" * 64,
                      launcher=launcher) as sb:
        engine = Engine(info, SandboxCaller(sb), options)
        evidence = engine.run()
        calls = sum(r.calls for r in sb.receipts) + (sb._current.calls if sb._current else 0)
        assert not sb.tainted and sb.restarts == 0
        crossed = _output_crossed(sb)
    elapsed = time.monotonic() - started
    assert evidence.status == "passed", evidence.summary()
    assert evidence.by_id()["plus_one"].inputs >= 200
    # 200+ calls of about 280 KB each: more than 50 MB printed, and no crawl
    assert calls >= 200
    assert elapsed < 60, elapsed
    assert crossed <= (1 << 20) + 4096, crossed  # 1 MiB of it reached the host


def test_output_beyond_the_cap_is_dropped_and_counted(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(CHATTY, launcher)
    started = time.monotonic()
    for _ in range(5):  # 5 x 2 x 10 MB through print()
        result = sb.call("chatter", [10])
        assert result.ok and result.value == 10, result
    assert time.monotonic() - started < 30
    assert sb.call("f", [1]).value == 2
    assert sb._current is not None
    diagnostics = sb._current.running.diagnostics()
    assert "candidate output beyond 1048576 bytes is dropped" in diagnostics
    # the running count of what was dropped (the last report: at least 64 MiB of 100 MB)
    counts = re.findall(r"(\d+) bytes of candidate output dropped so far", diagnostics)
    assert counts and (64 << 20) <= int(counts[-1]) <= 5 * 2 * (10 << 20), diagnostics
    assert (1 << 20) <= _output_crossed(sb) <= (1 << 20) + 4096


def test_the_cap_is_configurable(
    process_launcher: ProcessLauncher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(CHATTY, process_launcher, Limits(output_bytes=1000))
    assert sb.call("f", [3]).value == 4
    assert 1000 <= _log_size(sb) < 1000 + 200  # the cap and the one-line notice
    quiet = sandbox_factory(CHATTY, process_launcher, Limits(output_bytes=0))
    assert quiet.call("f", [3]).value == 4
    assert _log_size(quiet) < 200


def test_a_full_log_does_not_fail_print_but_fd_writes_keep_their_limit(
    process_launcher: ProcessLauncher, sandbox_factory: Make
) -> None:
    source = CHATTY + textwrap.dedent("""
        import os

        def raw(n):
            try:
                for _ in range(n):
                    os.write(1, b"r" * 65536)
            except OSError as exc:
                return exc.errno
            return 0
    """)
    # the log may hold 64 KiB (RLIMIT_FSIZE) but print() is allowed 1 MiB
    sb = sandbox_factory(source, process_launcher, Limits(file_bytes=64 << 10))
    assert sb.call("f", [7]).value == 8  # print() past RLIMIT_FSIZE: dropped, no OSError
    assert sb.call("raw", [100]).value == errno.EFBIG  # os.write still meets the limit


STREAMS = """
import sys

def streams():
    out = sys.stdout
    written = out.write("héllo\\n")
    try:
        out.write(b"bytes")
        wrong_type = "accepted"
    except TypeError:
        wrong_type = "TypeError"
    print("to stderr", file=sys.stderr, flush=True)
    sys.stdout.buffer.write(bytearray(b"raw"))
    return [written, wrong_type, out.fileno(), sys.stderr.fileno(), out.isatty(),
            out.encoding, out.writable(), sys.__stdout__ is out, sys.__stderr__ is sys.stderr]
"""


def test_the_bounded_streams_behave_like_streams(launcher: Launcher, sandbox_factory: Make) -> None:
    sb = sandbox_factory(STREAMS, launcher)
    result = sb.call("streams")
    value = result.value
    assert isinstance(value, list) and str(value[5]).lower() == "utf-8", result
    assert value[:5] + value[6:] == [6, "TypeError", 1, 2, False, True, True, True], result
