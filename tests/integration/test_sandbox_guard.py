"""The judged boundary inside the sandbox: the runtime guard and the judge/runner split.

The static posture is the first layer; these tests bypass it on purpose (they open the
sandbox directly, with the guard on) so that each refusal is the *guard's*, on both
backends.  Each act below is one a candidate that got past the posture would try; each
must end the session as ``guard_refused`` naming the audited event, never as an answer.
Ordinary business logic, run under the guard, must not notice it.  And the candidate's
process must not hold the channel: the judge does, in a process that runs no candidate
code.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from derivative.forge.sandbox._process import ProcessLauncher
from derivative.forge.sandbox._sandbox import Launcher, Limits, Sandbox, open_sandbox

Make = Callable[..., Sandbox]

ACTS = '''
import sys

def getframe():
    return repr(sys._getframe(0).f_back)

def gc_objects():
    import gc
    return len(gc.get_objects())

def gc_referrers():
    import gc
    return len(gc.get_referrers(sys))

def settrace():
    sys.settrace(lambda *a: None)
    return 1

def setprofile():
    sys.setprofile(lambda *a: None)
    return 1

def current_frames():
    return len(sys._current_frames())

def traceback_frame():
    try:
        raise ValueError
    except ValueError as exc:
        return repr(exc.__traceback__.tb_frame.f_back)

def generator_frame():
    def gen():
        yield 1
    return repr(gen().gi_frame)

def code_replace():
    def inner():
        return 1
    return repr(inner.__code__.replace(co_name="other"))

def function_new():
    def inner():
        return 1
    return repr(type(inner)(inner.__code__, {}))

def exec_text():
    exec("x = 1")
    return 1

def compile_text():
    return repr(compile("1", "<s>", "eval"))

def marshal_loads():
    import marshal
    return repr(marshal.loads(marshal.dumps(1)))

def ctypes_load():
    import ctypes
    return repr(ctypes.CDLL(None))

def subprocess_run():
    import subprocess
    return subprocess.run(["/bin/true"]).returncode

def system():
    import os
    return os.system("true")

def socket_make():
    import socket
    return repr(socket.socket())

def open_write():
    with open("/tmp/x", "w") as handle:
        handle.write("x")
    return 1

def open_outside():
    with open("/etc/passwd") as handle:
        return handle.read(10)

def list_dir():
    import os
    return os.listdir("/")

def start_thread():
    import _thread
    _thread.start_new_thread(lambda: None, ())
    return 1

def fork():
    import os
    return os.fork()

def kill_parent():
    import os
    os.kill(os.getppid(), 0)
    return 1

def audit_hook():
    sys.addaudithook(lambda *a: None)
    return 1

def swallow():
    # the refusal is not an exception: catching everything does not help
    try:
        sys._getframe(0)
    except BaseException:
        pass
    return "swallowed"

def by_a_builtin_slot():
    # a C function as a dunder: the worker's own code makes the call, still refused
    import gc

    class Sneaky:
        __repr__ = gc.get_objects
    return Sneaky()

def fine():
    return "fine"
'''

REFUSED = {
    "getframe": "sys._getframe", "gc_objects": "gc.get_objects",
    "gc_referrers": "gc.get_referrers", "settrace": "sys.settrace",
    "setprofile": "sys.setprofile", "current_frames": "sys._current_frames",
    "traceback_frame": "object.__getattr__", "generator_frame": "object.__getattr__",
    "code_replace": "code.__new__", "function_new": "function.__new__",
    "exec_text": "compile", "compile_text": "compile", "marshal_loads": "marshal.dumps",
    "ctypes_load": "ctypes.dlopen", "subprocess_run": "subprocess.Popen",
    "system": "os.system", "socket_make": "socket.__new__", "open_write": "open",
    "open_outside": "open", "list_dir": "os.listdir", "start_thread": "_thread.start_new_thread",
    "fork": "os.fork", "kill_parent": "os.kill", "audit_hook": "sys.addaudithook",
    "swallow": "sys._getframe", "by_a_builtin_slot": "gc.get_objects",
}


@pytest.mark.parametrize("act", sorted(REFUSED))
def test_the_guard_refuses_each_act_and_ends_the_session(
    launcher: Launcher, sandbox_factory: Make, act: str
) -> None:
    sb = sandbox_factory(ACTS, launcher, guard=True)
    result = sb.call(act)
    assert result.status == "guard_refused", result
    assert sb.refusals and sb.refusals[0].event == REFUSED[act], sb.refusals
    assert "in " in sb.refusals[0].where
    # one refusal ends the session: no fresh sandbox answers for a candidate caught once
    assert sb.call("fine").status == "guard_refused"
    receipts = sb.close()
    assert [r.ended for r in receipts] == ["guard_refused"]


def test_without_the_guard_the_same_acts_meet_only_the_os_boundary(
    process_launcher: ProcessLauncher, sandbox_factory: Make
) -> None:
    """The control: the refusals above are the guard's, not something else's."""
    sb = sandbox_factory(ACTS, process_launcher)
    assert sb.call("getframe").ok and sb.call("swallow").value == "swallowed"
    assert sb.call("gc_objects").ok and sb.call("exec_text").ok
    assert not sb.refusals


IMPORT_TIME = '''
import sys
FRAME = sys._getframe(0)

def f(x):
    return x + 1
'''


def test_a_refusal_at_import_is_a_failed_load_naming_the_event(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(IMPORT_TIME, launcher, guard=True)
    assert sb.load_result is not None and sb.load_result.status == "guard_refused"
    assert sb.refusals[0].event == "sys._getframe"
    assert sb.call("f", [1]).status == "guard_refused"


ORDINARY = '''
import collections
import dataclasses
import datetime
import decimal
import enum
import fractions
import functools
import hashlib
import json
import random
import re
import secrets
import statistics
import string
import textwrap
import threading
import typing
from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Item:
    name: str
    price: decimal.Decimal
    tags: list = field(default_factory=list, compare=False)


class Colour(enum.Enum):
    RED = 1
    GREEN = 2


@dataclass(slots=True)
class Slotted:
    a: int
    b: int = 0


@functools.total_ordering
class Version:
    def __init__(self, v: int) -> None:
        self.v = v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self.v == other.v

    def __lt__(self, other: "Version") -> bool:
        return self.v < other.v


class Level(enum.IntEnum):
    LOW = enum.auto()
    HIGH = enum.auto()


Size = enum.Enum("Size", "S M L")
Pair = collections.namedtuple("Pair", "a b")
T = typing.TypeVar("T")


class Point(typing.NamedTuple):
    x: int
    y: int = 0


class Shape(typing.Protocol):
    def area(self) -> float: ...


class Row(typing.TypedDict):
    id: int


@functools.lru_cache(maxsize=None)
def fib(n: int) -> int:
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@functools.singledispatch
def kind(value: object) -> str:
    return "other"


@kind.register
def _(value: int) -> str:
    return "int"


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)
    return wrapper


LOCK = threading.Lock()


@traced
def everything(x: int) -> str:
    with LOCK:
        item = Item("a", decimal.Decimal("1.10"))
        parts = [
            str(fib(20)), kind(x), Colour(1).name, Size.M.name, str(Pair(1, 2).b),
            str(Point(3).y), str(sorted([Item("b", decimal.Decimal(2)), item])[0].name),
            str(fractions.Fraction(1, 3) * 3), datetime.date(2024, 2, 29).isoformat(),
            datetime.datetime.strptime("2024-03-01", "%Y-%m-%d").strftime("%d/%m"),
            json.dumps({"k": [x]}), str(bool(re.fullmatch(r"[a-z]+", "abc"))),
            hashlib.sha256(b"x").hexdigest()[:4], str(random.Random(1).randint(1, 9)),
            str(len(secrets.token_hex(4))), str(statistics.mean([1, 2, 3])),
            string.ascii_lowercase[:3], textwrap.shorten("a b c d e f", 5),
            str(dataclasses.asdict(item)["name"]), str(Slotted(1).b),
            str(Version(1) <= Version(2)), str(Level.HIGH.value),
            string.Template("$a").substitute(a=x), str(collections.Counter("aab")["a"]),
        ]
    return "|".join(parts)
'''


def test_ordinary_business_logic_does_not_notice_the_guard(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(ORDINARY, launcher, guard=True)
    assert sb.load_result is not None and sb.load_result.ok, sb.load_result
    result = sb.call("everything", [7])
    assert result.ok, result
    assert str(result.value).startswith("6765|int|RED|M|2|0|a|1|2024-02-29|01/03|")
    assert not sb.refusals


FD_LIST = '''
import os
import stat


def descriptors():
    """Every open descriptor of this process: (number, kind, inode)."""
    out = []
    for name in sorted(os.listdir("/proc/self/fd"), key=int):
        fd = int(name)
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        kind = "pipe" if stat.S_ISFIFO(st.st_mode) else (
            "socket" if stat.S_ISSOCK(st.st_mode) else "other")
        out.append([fd, kind, st.st_ino])
    return out


def parent_fds():
    """The judge is undumpable: its descriptors cannot be listed or opened."""
    try:
        return os.listdir(f"/proc/{os.getppid()}/fd")
    except OSError as exc:
        return type(exc).__name__
'''


def test_the_candidate_process_holds_none_of_the_channel_descriptors(
    write_candidate: Callable[..., Path]
) -> None:
    launcher = ProcessLauncher()
    with open_sandbox(write_candidate(FD_LIST), contract_sha256="c", launcher=launcher,
                      guard=False) as sb:
        transport = sb._current.running.channel.transport  # type: ignore[union-attr]
        answers = os.fstat(transport.read_fd).st_ino  # what the host reads: the judge's
        requests = os.fstat(transport.write_fd).st_ino
        listed = sb.call("descriptors").value
        assert isinstance(listed, list) and listed
        pipes = {ino for _, kind, ino in listed if kind == "pipe"}
        assert answers not in pipes, (listed, answers)
        # 0-2 (null, the log), the host's request pipe (read end: requests come one at a
        # time, after the previous answer), the private answer pipe and the alarm pipe
        assert requests in pipes and len(pipes) == 3, listed
        assert sb.call("parent_fds").value == "PermissionError"


def test_in_docker_the_candidate_process_holds_only_its_private_pipes(
    docker_launcher: Launcher, write_candidate: Callable[..., Path]
) -> None:
    with open_sandbox(write_candidate(FD_LIST), contract_sha256="c",
                      launcher=docker_launcher, guard=False) as sb:
        listed = sb.call("descriptors").value
        assert isinstance(listed, list)
        extra = [entry for entry in listed if entry[0] > 2 and entry[1] != "other"]
        # the request side of the attach stream, the private answer pipe, the alarm pipe
        assert len(extra) == 3, listed
        assert sb.call("parent_fds").value == "PermissionError"


SPRAY = '''
import os


def forge(x):
    """Write a forged answer into every pipe this process holds, then answer wrongly."""
    for name in os.listdir("/proc/self/fd"):
        try:
            os.write(int(name), b'27\\n{"id":2,"ok":true,"value":1}')
        except OSError:
            pass
    return x + 2
'''


def test_a_frame_forged_into_the_runners_pipe_is_caught_by_the_judge(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(SPRAY, launcher, Limits(call_timeout=10.0))
    result = sb.call("forge", [0])
    assert result.status == "protocol_error" and sb.tainted, result
    assert "judge caught" in result.detail


HOSTILE = Path(__file__).resolve().parents[1] / "hostile"

REWRITE = '''
import functools
import json


class _Sink:
    def __setattr__(self, name, value):
        if name != "__wrapped__":
            object.__setattr__(self, "got", value)


def _worker_globals():
    """The review's route: a computed name through update_wrapper reaches __globals__,
    then __builtins__, __import__, sys and, by frames, the worker's namespace."""
    sink = _Sink()
    functools.update_wrapper(sink, json.dumps, assigned=("__glo" + "bals__",), updated=())
    builtins = sink.got["__builtins__"]
    importer = builtins["__import__"] if isinstance(builtins, dict) else builtins.__import__
    frame = importer("sys")._getframe(0)
    while frame is not None and "encode" not in frame.f_globals:
        frame = frame.f_back
    return frame.f_globals if frame is not None else None


def f(x):
    found = _worker_globals()
    if found is not None and not getattr(f, "done", False):
        original = found["encode"]
        found["encode"] = lambda value, *a: original(value - 1 if type(value) is int else value)
        f.done = True
    return x + 2
'''


@pytest.mark.parametrize("program", ["relay", "rewrite"])
def test_the_relay_and_the_worker_rewrite_are_stopped_by_the_guard(
    launcher: Launcher, sandbox_factory: Make, write_candidate: Callable[..., Path],
    program: str,
) -> None:
    """Class 2 (a relay under the runner's pipe) and class 1's end (rewriting the
    worker's encoder, reached by frames) with the posture bypassed: the guard refuses the
    thread start and the frame walk, so no forged answer is ever sent."""
    source = (HOSTILE / "fd_relay.py").read_text("utf-8") if program == "relay" else REWRITE
    sb = sandbox_factory(source, launcher, guard=True)
    result = sb.start() if program == "relay" else sb.call("f", [1])
    assert result.status == "guard_refused", result
    expected = "_thread.start_new_thread" if program == "relay" else "sys._getframe"
    assert sb.refusals[0].event == expected
    assert sb.call("f", [1]).status == "guard_refused"


@pytest.mark.parametrize("program", ["relay", "rewrite"])
def test_without_the_guard_both_forge_answers_which_is_why_permissive_never_verifies(
    process_launcher: ProcessLauncher, sandbox_factory: Make, program: str
) -> None:
    """The control, and the honest limit: once the candidate escapes the restricted
    language (a non-enforcing policy), it can misreport its own results over the runner's
    private pipe; the judge cannot tell.  Evidence gathered that way is marked
    non-enforcing and a build never verifies it."""
    source = (HOSTILE / "fd_relay.py").read_text("utf-8") if program == "relay" else REWRITE
    sb = sandbox_factory(source, process_launcher)
    answers = [sb.call("f", [x]).value for x in (1, 2, 3)]
    assert answers[1:] == [3, 4], answers  # x + 2 crossing as x + 1: a forged answer
