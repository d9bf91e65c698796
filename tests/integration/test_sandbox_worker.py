"""Round trips through a real sandbox, on every backend.

What crosses the channel (functions, systems, exceptions with their MRO, dates, enums,
lists, tuples, reals), what must not confuse the host (a candidate printing garbage and
fake frames on its stdout, or writing straight into the channel), and what a misbehaving
call costs (a time-out kills the sandbox, the call fails, the next call gets a fresh one).
"""

from __future__ import annotations

import datetime
import hashlib
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from derivative._values import EnumValue
from derivative.forge.sandbox._channel import InstanceRef, Opaque
from derivative.forge.sandbox._receipts import candidate_digest
from derivative.forge.sandbox._sandbox import Launcher, Limits, Sandbox, open_sandbox

pytestmark = pytest.mark.slow

Make = Callable[..., Sandbox]

VALUES = """
import collections, datetime, enum, fractions

class Colour(enum.Enum):
    red = 1
    green = 2

class Boom(ValueError):
    pass

class Deeper(Boom):
    pass

def add(a, b):
    return a + b

def echo(x):
    return x

def kind(x):
    return [type(x).__name__, repr(x)]

def next_day(d):
    return d + datetime.timedelta(days=1)

def favourite():
    return Colour.green

def as_text():
    return "green"

def pair():
    return (1, "two", [3.5])

def exact():
    return fractions.Fraction(1, 3)

def odd():
    return {1, 2}

def counts():
    return collections.Counter("aab")

def nan():
    return float("nan")

def raise_deeper(message):
    raise Deeper(message)

def raise_exit():
    raise SystemExit(7)

class Counter:
    def __init__(self):
        self.n = 0

    def add(self, k):
        self.n += k
        return self.n

not_callable = 3
"""


def test_functions_values_and_types_round_trip(launcher: Launcher, sandbox_factory: Make) -> None:
    sb = sandbox_factory(VALUES, launcher)
    assert sb.load_result is not None and sb.load_result.ok
    assert sb.call("add", [2, 3]).value == 5
    assert sb.call("add", ["a", "b"]).value == "ab"
    assert sb.call("echo", [[1, [2, 3], "x"]]).value == [1, [2, 3], "x"]
    assert sb.call("echo", [True]).value is True
    assert sb.call("echo", [None]).value is None
    assert sb.call("next_day", [datetime.date(2024, 2, 28)]).value == datetime.date(2024, 2, 29)
    assert sb.call("kind", [datetime.date(2024, 1, 1)]).value == [
        "date", "datetime.date(2024, 1, 1)"]
    # reals cross exactly and reach the candidate as float (docs/language.md)
    assert sb.call("kind", [Fraction(1, 4)]).value == ["float", "0.25"]
    assert sb.call("exact").value == Fraction(1, 3)
    assert sb.call("pair").value == (1, "two", [3.5])
    assert sb.call("favourite").value == EnumValue("Colour", "green")
    assert sb.call("as_text").value == "green"
    assert sb.call("odd").value == Opaque("set", "{1, 2}")
    assert sb.call("counts").value == {"a": 2, "b": 1}  # a dict crosses as its items
    nan = sb.call("nan").value
    assert isinstance(nan, float) and nan != nan
    # large integers survive
    assert sb.call("add", [2**80, 1]).value == 2**80 + 1


def test_enum_arguments_become_the_candidates_own_enum_or_plain_names(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(VALUES, launcher)
    own = sb.call("kind", [EnumValue("Colour", "red")])
    assert own.value == ["Colour", "<Colour.red: 1>"]
    assert sb.call("echo", [EnumValue("Colour", "red")]).value == EnumValue("Colour", "red")
    undeclared = sb.call("kind", [EnumValue("Shape", "round")])
    assert undeclared.value == ["str", "'round'"]
    missing = sb.call("echo", [EnumValue("Colour", "purple")])
    assert missing.status == "error" and missing.exc is not None
    assert missing.exc.phase == "decode" and "purple" in missing.exc.message


LOOKALIKES = """
import builtins

_REAL = ValueError


class ValueError(Exception):
    __module__ = "builtins"


class _Disguise(type):
    __mro__ = property(lambda cls: (cls, _REAL, Exception, BaseException, object))
    __name__ = property(lambda cls: "ValueError")


class Disguised(Exception, metaclass=_Disguise):
    pass


class Sneaky(str):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return hash("ValueError")


class Renamed(Exception):
    pass


Renamed.__name__ = Sneaky("ValueError")


class Odd(Exception):
    __module__ = 42


def lookalike():
    raise ValueError("fake")


def disguised():
    raise Disguised("fake")


def renamed():
    raise Renamed("fake")


def rebound():
    builtins.ValueError = ValueError  # too late: the worker pinned the real one
    raise ValueError("fake")


def odd():
    raise Odd("fake")


def real():
    raise _REAL("real")
"""


def test_a_lookalike_exception_is_reported_as_not_the_builtin(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    """Identity is decided in the worker against the built-ins pinned before the candidate
    was imported; names and modules are read through ``type``'s own descriptors."""
    sb = sandbox_factory(LOOKALIKES, launcher)
    for name in ("lookalike", "disguised", "renamed", "rebound", "odd"):
        result = sb.call(name)
        exc = result.exc
        assert result.status == "raised" and exc is not None, (name, result)
        assert not exc.derives_from_builtin("ValueError"), (name, exc)
        assert exc.builtin[0] is False and exc.builtin[-2:] == (True, True), (name, exc)
    lookalike = sb.call("lookalike").exc
    assert lookalike is not None and lookalike.classes[0] == "ValueError"
    assert lookalike.modules[0] == "builtins"  # what it claims, flagged not built-in
    disguised = sb.call("disguised").exc
    assert disguised is not None
    assert disguised.classes == ("Disguised", "Exception", "BaseException", "object")
    odd = sb.call("odd").exc
    assert odd is not None and odd.modules[0] == "?"
    real = sb.call("real").exc
    assert real is not None and real.derives_from_builtin("ValueError")
    assert not sb.tainted


def test_exceptions_carry_their_mro_and_message(launcher: Launcher, sandbox_factory: Make) -> None:
    sb = sandbox_factory(VALUES, launcher)
    raised = sb.call("raise_deeper", ["it broke"])
    assert raised.status == "raised" and raised.exc is not None
    assert raised.exc.classes[:4] == ("Deeper", "Boom", "ValueError", "Exception")
    assert raised.exc.derives_from_builtin("ValueError")
    assert not raised.exc.derives_from_builtin("KeyError")
    assert raised.exc.modules[:3] == ("cand", "cand", "builtins")
    assert raised.exc.builtin[:4] == (False, False, True, True)
    assert raised.exc.message == "it broke" and raised.exc.phase == "call"
    exited = sb.call("raise_exit")
    assert exited.status == "raised" and exited.exc is not None
    assert exited.exc.name == "SystemExit"
    # the worker survived both
    assert sb.call("add", [1, 1]).value == 2


def test_missing_or_uncallable_names_are_errors_not_exceptions_of_the_candidate(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(VALUES, launcher)
    for name in ("no_such_function", "not_callable"):
        result = sb.call(name)
        assert result.status == "error" and result.exc is not None
        assert result.exc.phase == "lookup"


def test_systems_instances_and_methods(launcher: Launcher, sandbox_factory: Make) -> None:
    sb = sandbox_factory(VALUES, launcher)
    first = sb.new_instance("Counter")
    second = sb.new_instance("Counter")
    assert isinstance(first.value, InstanceRef) and isinstance(second.value, InstanceRef)
    assert sb.method(first.value, "add", [2]).value == 2
    assert sb.method(first.value, "add", [3]).value == 5
    assert sb.method(second.value, "add", [10]).value == 10
    missing = sb.method(first.value, "subtract", [1])
    assert missing.status == "error"
    not_a_class = sb.new_instance("add")
    assert not_a_class.status == "error"


def test_bind_overrides_a_name(launcher: Launcher, write_candidate: Callable[..., Path]) -> None:
    path = write_candidate("def strong(p):\n    return len(p) > 3\n", name="rules")
    with open_sandbox(path.parent, module="rules", contract_sha256="c", launcher=launcher,
                      binds={"is_strong": "rules:strong"}) as sb:
        assert sb.call("is_strong", ["abcd"]).value is True
        assert sb.call("strong", ["ab"]).value is False


def test_package_candidates_import_by_module(
    launcher: Launcher, tmp_path: Path
) -> None:
    pkg = tmp_path / "accounts"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "rules.py").write_text("def limit():\n    return 5\n")
    with open_sandbox(tmp_path, module="accounts.rules", contract_sha256="c",
                      launcher=launcher) as sb:
        assert sb.call("limit").value == 5
    with open_sandbox(pkg, contract_sha256="c", launcher=launcher,
                      binds={"limit": "accounts.rules:limit"}) as sb:
        assert sb.call("limit").value == 5


NOISY = """
import os, sys
FAKE = '31\\n{"id":%d,"ok":true,"value":999}'
print(FAKE % 1)
os.write(1, (FAKE % 2).encode())
os.write(2, b"garbage on stderr \\xff\\x00")

def noisy(x):
    for rid in range(0, 64):
        print(FAKE % rid)
        sys.stdout.write(FAKE % rid)
        sys.stdout.flush()
        os.write(1, (FAKE % rid).encode())
        os.write(2, (FAKE % rid).encode())
        if sys.__stdout__ is not None:
            sys.__stdout__.write(FAKE % rid)
            sys.__stdout__.flush()
    print("\\x00\\x01 not json at all {{{")
    return x + 1
"""


def test_printing_garbage_and_fake_frames_does_not_confuse_the_host(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(NOISY, launcher)
    assert sb.load_result is not None and sb.load_result.ok
    for i in range(5):
        result = sb.call("noisy", [i])
        assert result.status == "returned" and result.value == i + 1
    assert not sb.tainted
    receipts = sb.close()
    assert receipts[-1].protocol_errors == 0 and receipts[-1].ended == "closed"


CHANNEL_WRITER = """
import os, stat

def channel_fds():
    found = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd <= 2:
            continue
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            found.append(fd)
    return found

def spray(data):
    for fd in channel_fds():
        try:
            os.write(fd, data)
        except OSError:
            pass

def oversize():
    spray(b"99999999\\n")
    return 1

def forged():
    spray(b'32\\n{"id":123456,"ok":true,"value":1}')
    return 1

def header_garbage():
    spray(b"abc\\n{}")
    return 1

def big():
    return "x" * (2 << 20)

def fine():
    return "fine"
"""


@pytest.mark.parametrize("function", ["oversize", "forged", "header_garbage"])
def test_frames_forged_into_the_channel_fail_the_call_and_taint_the_run(
    launcher: Launcher, sandbox_factory: Make, function: str
) -> None:
    sb = sandbox_factory(CHANNEL_WRITER, launcher)
    result = sb.call(function)
    assert result.status == "protocol_error", result
    assert sb.tainted
    # a fresh sandbox answers the next call, and the evidence keeps the violation
    assert sb.call("fine").value == "fine"
    receipts = sb.close()
    assert [r.ended for r in receipts] == ["protocol_error", "closed"]
    assert receipts[0].protocol_errors == 1


def test_oversize_results_are_refused_by_the_worker_not_sent(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(CHANNEL_WRITER, launcher)
    result = sb.call("big")
    assert result.status == "error" and result.exc is not None
    assert result.exc.name == "SandboxFrameTooLarge" and result.exc.phase == "encode"
    assert not sb.tainted
    assert sb.call("fine").value == "fine"


SLOW = """
import time

def spin():
    while True:
        pass

def sleepy():
    time.sleep(60)

def quick():
    return "quick"

class Box:
    def __init__(self):
        self.v = 0

    def get(self):
        return self.v
"""


def test_a_timed_out_call_kills_the_sandbox_and_the_next_call_gets_a_fresh_one(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(SLOW, launcher, Limits(call_timeout=1.0))
    box = sb.new_instance("Box")
    assert isinstance(box.value, InstanceRef)
    for function in ("spin", "sleepy"):
        result = sb.call(function)
        assert result.status == "timeout", result
        assert 0.9 <= result.elapsed < 10.0  # killed at 1 s; a margin for a loaded machine
        assert sb.call("quick").value == "quick"
    assert sb.restarts == 2
    stale = sb.method(box.value, "get")
    assert stale.status == "stale_instance"
    receipts = sb.close()
    assert [r.ended for r in receipts] == ["timeout", "timeout", "closed"]
    assert len({r.run_id for r in receipts}) == 3


def test_the_whole_run_limit_stops_everything(launcher: Launcher, sandbox_factory: Make) -> None:
    sb = sandbox_factory(SLOW, launcher, Limits(call_timeout=30.0, run_timeout=4.0))
    result = sb.call("spin")
    assert result.status == "timeout" and "run" in result.detail
    after = sb.call("quick")
    assert after.status == "timeout"
    assert sb.close()[0].ended == "run_timeout"


CRASHY = """
import os

def die():
    os._exit(3)

def fine():
    return 1
"""


def test_a_worker_that_dies_is_a_crash_and_is_replaced(
    launcher: Launcher, sandbox_factory: Make
) -> None:
    sb = sandbox_factory(CRASHY, launcher)
    result = sb.call("die")
    assert result.status == "crashed"
    assert sb.call("fine").value == 1
    receipts = sb.close()
    assert receipts[0].ended == "crashed" and receipts[0].exit_status == 3


def test_import_failures_are_reported_as_the_load_result(
    launcher: Launcher, write_candidate: Callable[..., Path]
) -> None:
    path = write_candidate("raise ImportError('needs numpy')\n")
    with open_sandbox(path, contract_sha256="c", launcher=launcher) as sb:
        load = sb.load_result
        assert load is not None and load.status == "raised" and load.exc is not None
        assert load.exc.phase == "load" and load.exc.name == "ImportError"
        # calls then fail at once: no restart storm for code that cannot be imported
        call = sb.call("anything")
        assert call.status == "error" and "did not load" in call.detail
        assert sb.restarts == 0
    path = write_candidate("import os\nos._exit(9)\n")
    with open_sandbox(path, contract_sha256="c", launcher=launcher) as sb:
        assert sb.load_result is not None and sb.load_result.status == "crashed"
        assert sb.call("anything").status == "error" and sb.restarts == 0


def test_receipts_bind_the_run_to_what_was_exchanged(
    launcher: Launcher, write_candidate: Callable[..., Path], tmp_path: Path
) -> None:
    path = write_candidate(VALUES)

    def session(args: list[object]) -> tuple[str, ...]:
        with open_sandbox(path, contract_sha256="f" * 64, launcher=launcher) as sb:
            for a in args:
                sb.call("echo", [a])
            receipts = sb.close()
        (receipt,) = receipts
        assert receipt.backend == launcher.name
        assert receipt.calls == len(args)
        assert receipt.contract_sha256 == "f" * 64
        assert re.fullmatch(r"[0-9a-f]{32}", receipt.run_id)
        assert re.fullmatch(r"[0-9a-f]{64}", receipt.transcript_sha256)
        assert receipt.started_at <= receipt.finished_at
        assert receipt.exit_status == 0 and receipt.isolation
        assert (receipt.image_id is None) == (launcher.name == "process")
        return receipt.run_id, receipt.transcript_sha256, receipt.candidate_sha256

    a = session([1, "x"])
    b = session([1, "x"])
    c = session([1, "y"])
    assert a[0] != b[0]  # a fresh nonce for every run
    # a different exchange, a different transcript (the digest itself is recomputed from
    # the frames in test_sandbox_channel.py; set-up frames name per-run paths and pids)
    assert len({a[1], b[1], c[1]}) == 3 if launcher.name == "process" else a[1] == b[1] != c[1]
    # the candidate digest names the staged code: the file under its module name
    expected = tmp_path / "expected"
    expected.mkdir()
    (expected / "cand.py").write_bytes(path.read_bytes())
    assert a[2] == candidate_digest(expected)
    assert a[2] != hashlib.sha256(b"").hexdigest()
