# derivative: stdlib-only
"""The sandbox worker: imports a candidate and answers calls over a framed channel.

**One file, on purpose.**  The worker is one trust unit and is staged as one file.  It
runs as ``python -I -S worker.py``, which puts no folder on ``sys.path``: a second file
could only be loaded by path, through import machinery and a ``sys.modules`` that the
candidate shares and may rebind, or executed into a namespace of its own that would need
its own copy of the pins (below).  Whole, the pins are bound once, in one set of module
globals, before the candidate is imported, and the host stages two files it can name
(this one and the explorer).  The file is long but in sections: pins, the channel,
values, output, exploration, requests, the isolation set-up and the entry point.

This file runs *inside* the sandbox, as a script (``python -I -S _worker.py CANDIDATE_DIR
MODULE --fds R,W`` or ``... --stdio``), in whatever Python >= 3.10 the sandbox offers.  It
therefore imports nothing but the standard library: the project is not installed in the
sandbox image, and the less code shares an interpreter with the candidate the less there
is to subvert (docs/build.md, "the oracle lives on the host").

Why it is built the way it is:

- **The channel is not the candidate's stdout.**  The worker talks over a dedicated pipe
  pair (``--fds``, process backend) or over private duplicates of the original stdin/stdout
  (``--stdio``, Docker).  Before any candidate code runs, file descriptors 0, 1 and 2 are
  pointed at ``/dev/null`` or the log, so nothing the candidate prints can be read as an
  answer.  Nor does the candidate's process hold the channel's answer side at all: after the
  set-up the worker forks a *runner* (it imports the candidate under the runtime guard and
  answers calls) and stays as the *judge* (it vets and writes every answer); see "judge and
  runner" and "the runtime guard" below.  The host still treats every frame as untrusted.
- **Frames** are ``<decimal length>\\n<ASCII JSON>``, capped at ``MAX_FRAME`` bytes.  A text
  header keeps every byte printable, so no transport (a Docker attach stream included) can
  mistake a length for a control sequence.
- **The worker judges nothing.**  It looks names up, converts values, calls, and reports
  results or exceptions (along the real MRO each class's name, module and whether it *is*
  the built-in class of that name, and the message).  The oracle, the receipts and every
  verdict live on the host.
- **Process-backend set-up happens here, before the candidate is imported** (the ``setup``
  request): fresh namespaces through ``unshare(2)`` (via ``ctypes``: Python 3.11 has no
  ``os.unshare``), a private read-only root built from read-only bind mounts and entered
  with ``pivot_root(2)``, an empty tmpfs ``/tmp``, an unprivileged id, no capabilities,
  ``no_new_privs``, resource limits and, last, a seccomp filter (a classic BPF program
  written here: no library needs to be reachable from inside the new root) that refuses
  the system calls only an escape needs.  The host verifies the outcome independently from
  ``/proc``; what the worker reports is only a cross-check.
- **The candidate's output is bounded in the interpreter.**  ``sys.stdout`` and
  ``sys.stderr`` become writers that forward at most ``OUTPUT_CAP`` bytes in all (the
  ``output_cap`` of the set-up) and then drop the rest silently, counting it; a notice in
  the log says when that began.  A chatty but correct candidate therefore neither meets
  RLIMIT_FSIZE on the log (``print`` raising ``OSError``) nor pushes a gigabyte through
  Docker's attach stream.  The fd-level limits stay as they were: a candidate that
  writes to the descriptors itself still meets them.
- **Interleavings are explored here, beside the candidate** (``explore``): the host's
  deterministic explorer (``forge/inside/_explore.py``, staged beside this file) is loaded by
  path, and only when an ``explore`` request arrives, so ordinary runs never pay for it
  and no module of the candidate can stand in for it.  The worker only runs schedules
  and reports what each thread got; the host judges the invariant.

Protocol (one request at a time; every response echoes the request's ``id``)::

    -> {"id": 0, "op": "setup", "args": {...}}       first request: the process backend
                                                      isolates here; Docker asks for none
    <- {"id": 0, "ok": true, "value": {"stage": "unshared", ...}}
    -> {"id": 0, "op": "mapped"}                     only if the host writes the id maps
    <- {"id": 0, "ok": true, "value": {"stage": "forked", "pid": N}}   with a PID namespace
    <- {"id": 0, "ok": true, "value": {"stage": "ready", ...}}
    -> {"id": 1, "op": "load", "target": MODULE, "args": {"binds": {name: "mod:attr"}}}
    -> {"id": n, "op": "call", "target": NAME, "args": [...]}
    -> {"id": n, "op": "new_instance", "target": CLASS, "args": []}
    -> {"id": n, "op": "method", "target": METHOD, "instance": H, "args": [...]}
    <- {"id": n, "ok": true, "value": V} | {"id": n, "ok": false, "exc": EXC}
       EXC = {"mro": [NAME, ...], "modules": [MODULE, ...], "builtin": [BOOL, ...],
              "message": text, "phase": PHASE}
    -> {"id": n, "op": "explore", "target": SYSTEM, "args": {"setup": [[OP, [ARGS]], ...],
        "calls": [[OP, [ARGS]], ...], "limit": N, "timeout": SECONDS, "batch": K}}
    -> {"id": n, "op": "explore_next"}      more runs of the same search
    -> {"id": n, "op": "explore_close"}     discard it (a new explore does too)
    -> {"id": n, "op": "coverage"}          lines and arcs of the candidate's files run since
                                            the last ask (``load`` with ``"coverage": true``)
    <- {"id": n, "ok": true, "value": {"files": {PATH: {"lines": [L, ...],
        "arcs": [[FROM, TO], ...]}}, "more": bool}}   PATH relative to the candidate's folder
    <- {"id": n, "ok": true, "value": {"runs": [RUN, ...], "more": bool}}
       RUN = {"schedule": text, "setup": [OUTCOME...], "outcomes": [OUTCOME...],
              "trace": text, "deadlock": bool};  OUTCOME = {"ok": true, "value": V} |
              {"ok": false, "exc": {...}}; an argument {"$ref": i} is set-up call i's result

``mro`` names the exception's classes along its real MRO (``type.__mro__`` read through
``type``'s own descriptor, which a metaclass cannot override), most derived first;
``modules`` and ``builtin`` run parallel to it.  ``modules[i]`` is the class's
``__module__`` (read the same way) when that is an ASCII dotted name, else ``"?"``;
``builtin[i]`` is true exactly when the class *is* the built-in class of that name, by
identity with the built-ins pinned before the candidate was imported (so a look-alike with
``__module__ = "builtins"``, a rebound ``builtins.ValueError`` or a faked ``__name__`` is
false).  The host refuses an ``exc`` whose lists differ in length, whose module is
anything else, or whose built-in class does not come from ``builtins``.  The worker's own
errors (``Sandbox...``) carry names only: every module ``"?"``, no built-in.  (Before
``modules`` and ``builtin`` existed, the host matched class names alone; an ``exc``
without them is now a protocol error.)

Each explored schedule gets a fresh instance of SYSTEM (no-argument constructor), the
set-up calls in order, then one thread per call.  If the constructor fails, ``setup`` holds
that one failure and every call's outcome is it too.

Values: JSON scalars, arrays for lists, and tagged objects ``{"$date": "YYYY-MM-DD"}``,
``{"$enum": [Enum, member]}``, ``{"$frac": "p/q"}``, ``{"$float": "nan"|"inf"|"-inf"}``,
``{"$tuple": [...]}``, ``{"$dict": [[k, v], ...]}``, ``{"$instance": H}`` and, for
results of any other type,
``{"$object": {"type": name, "repr": text}}``.  Arguments of type real arrive as ``$frac``
and are handed to the candidate as ``float`` (docs/language.md §6); enum arguments become members
of the candidate's own ``enum.Enum`` subclass of that name if it defines one, else the
member name as ``str``.
"""

from __future__ import annotations

import builtins as _builtins
import enum
import errno
import importlib
import io
import json
import math
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

MAX_FRAME = 1 << 20
"""Largest frame body either side accepts (1 MiB); the host uses the same figure."""

MAX_HEADER = 9
"""Longest length header: up to 8 digits and the newline."""

MAX_DEPTH = 64
"""Deepest nesting of a value the worker encodes; deeper results become ``$object``."""

MAX_TEXT = 2000
"""Longest exception message or repr sent back (longer ones are cut)."""

PHASES = ("lookup", "decode", "call", "encode", "load", "protocol")

OUTPUT_CAP = 1 << 20
"""Bytes of the candidate's ``sys.stdout`` and ``sys.stderr`` output, together, that are
forwarded to the log by default; the set-up's ``output_cap`` overrides it."""

EXPLORER_FILE = "explorer.py"
"""The interleaving explorer, staged beside the worker (in the parent of the candidate's
folder, outside ``sys.path``), loaded by path under ``EXPLORER_MODULE``."""

EXPLORER_MODULE = "_derivative_sandbox_explorer"

MAX_EXPLORE_CALLS = 16
"""Threads (concurrent calls) of one exploration at most."""

MAX_EXPLORE_SETUP = 16
"""Set-up calls of one exploration at most."""

MAX_EXPLORE_BATCH = 500
"""Runs in one explore answer at most."""

EXPLORE_BATCH_BYTES = 512 << 10
"""An explore answer takes no more runs once it reaches this size; with one run below
256 KiB (see ``OUTCOME_CAP``) the frame stays below ``MAX_FRAME``."""

OUTCOME_CAP = 8 << 10
"""Largest encoded outcome of an explored call; a larger one is replaced by an error.
With at most 32 outcomes per run, one run stays well below 256 KiB."""

TRACE_LINES = 60
TRACE_CHARS = 4000
SCHEDULE_CHARS = 2000

# --------------------------------------------------------------------------- pins
#
# The candidate shares this interpreter.  Under a policy that refuses nothing it can
# rebind attributes of modules everybody shares (``json.dumps``, ``os.write``,
# ``builtins.len``) or of this module (``sys.modules["__main__"].encode``) so that a
# wrong answer would cross the channel as a right one.  Everything on the path from a
# result to the frame is therefore bound here, before any candidate code runs: the
# built-in functions are copied into this module's globals (a global name is found
# before a built-in one), the few module functions the path calls are held as
# private names, JSON is written by a C encoder object made here and read by a
# decoder instance made here, and ``__main__`` is replaced by an empty module before
# the candidate is imported (``hide_worker``).  What remains possible (walking the
# heap to find and mutate these very objects) is refused by the default policy; the
# host never trusts a frame beyond its shape in any case.

globals().update({k: v for k, v in vars(_builtins).items() if not k.startswith("__")})

_os_read = os.read
_os_write = os.write
_os_exit = os._exit
_isnan = math.isnan
_isinf = math.isinf
_Enum = enum.Enum
_modules_get = sys.modules.get
_json_decoder = json.JSONDecoder()
_raw_decode = _json_decoder.raw_decode


def _reject_unencodable(value: Any) -> Any:
    raise TypeError(f"not JSON: {type(value).__name__}")


def _make_writer() -> Callable[[Any], str]:
    """Compact ASCII JSON from a C encoder object bound now (``json.dumps`` looks its
    encoder up again at every call, so it would follow a rebinding)."""
    try:
        from _json import encode_basestring_ascii as c_escape
        from _json import make_encoder as c_make_encoder

        encoder = c_make_encoder(None, _reject_unencodable, c_escape, None, ":", ",",
                                 False, False, False)
        join = "".join

        def write(value: Any) -> str:
            return join(encoder(value, 0))

        write({"probe": [1, 2.5, "x", True, None]})
        return write
    except Exception:  # pragma: no cover - an interpreter without the C accelerator
        return json.JSONEncoder(ensure_ascii=True, allow_nan=False,
                                separators=(",", ":")).encode


_dumps = _make_writer()


def _loads(text: str) -> Any:
    value, end = _raw_decode(text)
    if text[end:].strip():
        raise ValueError("extra data after the JSON value")
    return value


def hide_worker() -> None:
    """Replace ``__main__`` by an empty module before the candidate is imported, so that
    ``import __main__`` and ``sys.modules["__main__"]`` give it nothing of the worker."""
    import types

    here = sys.modules.get("__main__")
    if here is not None and here.__dict__ is globals():
        _KEEP.append(here)
        sys.modules["__main__"] = types.ModuleType("__main__")


_KEEP: list[Any] = []


# --------------------------------------------------------------------------- the channel


class Channel:
    """Framed JSON over two file descriptors; no buffering beyond the current frame."""

    def __init__(self, rfd: int, wfd: int) -> None:
        self.rfd = rfd
        self.wfd = wfd

    def _read_exact(self, n: int) -> bytes | None:
        chunks: list[bytes] = []
        while n > 0:
            try:
                chunk = _os_read(self.rfd, min(n, 65536))
            except InterruptedError:  # pragma: no cover - PEP 475 retries already
                continue
            if not chunk:
                return None
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def read(self) -> dict[str, Any] | None:
        """The next request, or None at end of input (the host closed the channel)."""
        header = b""
        while not header.endswith(b"\n"):
            byte = self._read_exact(1)
            if byte is None:
                return None
            header += byte
            if len(header) > MAX_HEADER:
                raise ValueError("frame header too long")
        digits = header[:-1]
        if not digits.isdigit():
            raise ValueError("frame header is not a length")
        size = int(digits)
        if size > MAX_FRAME:
            raise ValueError(f"frame of {size} bytes exceeds the cap")
        body = self._read_exact(size)
        if body is None:
            return None
        request = _loads(body.decode("ascii"))
        if not isinstance(request, dict):
            raise ValueError("a request must be a JSON object")
        return request

    def send(self, message: dict[str, Any]) -> None:
        """Write one frame with a single ``write`` where the pipe allows it."""
        body = _dumps(message)
        data = body.encode("ascii")
        if len(data) > MAX_FRAME:
            # Never send what the host must reject: replace it by an error that fits.
            fallback = {
                "id": message.get("id"),
                "ok": False,
                "exc": _synthetic("SandboxFrameTooLarge", "RuntimeError",
                                  f"the response was {len(data)} bytes; the cap is {MAX_FRAME}",
                                  "encode"),
            }
            data = _dumps(fallback).encode("ascii")
        frame = str(len(data)).encode("ascii") + b"\n" + data
        view = memoryview(frame)
        while view:
            written = _os_write(self.wfd, view)
            view = view[written:]


# --------------------------------------------------------------------------- values


class Undefined(LookupError):
    """The candidate does not provide a name the host asked for (a function, a class, a
    method), or provides it as something else; reported as ``SandboxUndefined``."""


class DecodeError(Exception):
    """An argument the worker cannot turn into a Python value."""


class Candidate:
    """The imported candidate module and the bind table (spec name -> ``module:attr``)."""

    def __init__(self, module: Any, binds: dict[str, str]) -> None:
        self.module = module
        self.binds = binds
        self.instances: dict[int, Any] = {}
        self.next_handle = 1

    def resolve(self, name: str) -> Any:
        """The object bound to a spec name: the ``bind`` target, else the module attribute."""
        target = self.binds.get(name)
        if target is None:
            if not hasattr(self.module, name):
                raise Undefined(f"the candidate defines no {name}")
            return getattr(self.module, name)
        module_name, _, attr_path = target.partition(":")
        obj: Any = importlib.import_module(module_name) if module_name else self.module
        for part in (attr_path or name).split("."):
            if not hasattr(obj, part):
                raise Undefined(f"bind {name} to {target!r}: no attribute {part!r}")
            obj = getattr(obj, part)
        return obj

    def enum_member(self, enum_name: str, member: str) -> Any:
        """The candidate's own enum member if it defines that enum, else the name as str."""
        try:
            cls = self.resolve(enum_name)
        except LookupError:
            return member
        except Exception as exc:  # a broken bind target: report it as a decode error
            raise DecodeError(f"enum {enum_name}: {exc}") from exc
        if isinstance(cls, type) and issubclass(cls, _Enum):
            try:
                return cls[member]
            except KeyError:
                raise DecodeError(f"{enum_name} has no member {member!r}") from None
        return member


def decode(value: Any, candidate: Candidate, depth: int = 0) -> Any:
    """A request value (JSON) as the Python value the candidate receives."""
    if depth > MAX_DEPTH:
        raise DecodeError("argument nested too deeply")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, list):
        return [decode(v, candidate, depth + 1) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        ((tag, payload),) = value.items()
        if tag == "$date" and isinstance(payload, str):
            import datetime

            return datetime.date.fromisoformat(payload)
        if tag == "$frac" and isinstance(payload, str):
            import fractions

            return float(fractions.Fraction(payload))
        if tag == "$float" and payload in ("nan", "inf", "-inf"):
            return float(payload)
        if tag == "$enum" and isinstance(payload, list) and len(payload) == 2:
            return candidate.enum_member(str(payload[0]), str(payload[1]))
        if tag == "$tuple" and isinstance(payload, list):
            return tuple(decode(v, candidate, depth + 1) for v in payload)
        if tag == "$dict" and isinstance(payload, list):
            out = {}
            for pair in payload:
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise DecodeError("bad $dict entry")
                out[decode(pair[0], candidate, depth + 1)] = decode(pair[1], candidate, depth + 1)
            return out
    raise DecodeError(f"unsupported argument {value!r:.200}")


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def _safe_repr(value: Any) -> str:
    try:
        return _short(repr(value))
    except BaseException:
        return "<unrepresentable>"


def _opaque(value: Any) -> dict[str, Any]:
    try:
        name = type(value).__qualname__
    except BaseException:
        name = "?"
    return {"$object": {"type": _short(str(name)), "repr": _safe_repr(value)}}


def encode(value: Any, depth: int = 0) -> Any:
    """A candidate's result as JSON; exact built-in types only, anything else is opaque.

    Subclasses of ``int``, ``str`` or ``list`` are not passed off as the base type: a
    result of the wrong type must fail the obligation that reads it, and a subclass could
    carry its own ``__eq__``.  Enum members (``IntEnum`` included) are checked first.
    """
    if depth > MAX_DEPTH:
        return {"$object": {"type": "?", "repr": "<nested too deeply>"}}
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        try:
            int.__repr__(value)
        except ValueError:  # more digits than int->str conversion allows
            return {"$object": {"type": "int", "repr": "<integer too large to print>"}}
        return value
    if kind is float:
        if _isnan(value):
            return {"$float": "nan"}
        if _isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, _Enum):
        return {"$enum": [kind.__name__, value.name]}
    # datetime and fractions are imported only when someone needs them (start-up time):
    # a result can only be a date or a Fraction if its module is already loaded.
    datetime = _modules_get("datetime")
    if datetime is not None and kind is datetime.date:
        return {"$date": value.isoformat()}
    fractions = _modules_get("fractions")
    if fractions is not None and kind is fractions.Fraction:
        return {"$frac": f"{value.numerator}/{value.denominator}"}
    if kind is list:
        return [encode(v, depth + 1) for v in value]
    if kind is tuple:
        return {"$tuple": [encode(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        # Counter, defaultdict...: read through dict's own items, never the subclass's
        entries = _dict_items(value)
        return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in entries]}
    return _opaque(value)


_dict_items = dict.items


_BUILTIN_TYPES = {k: v for k, v in vars(_builtins).items() if isinstance(v, type)}
"""The interpreter's built-in classes by name, pinned before the candidate is imported:
``exception_info`` compares class objects with these, so neither a look-alike's name nor a
``builtins.ValueError = Mine`` rebinding makes a class the built-in."""

_type_mro = type.__dict__["__mro__"].__get__
_type_name = type.__dict__["__name__"].__get__
_type_module = type.__dict__["__module__"].__get__
"""``type``'s own descriptors, bound now: a metaclass can answer ``cls.__mro__`` and
``cls.__name__`` with properties of its own, but these read the class object itself (its
MRO is the one an ``except`` clause searches)."""

MAX_CLASS_NAME = 200
"""Longest class or module name sent (the host refuses longer ones)."""


def _class_entry(cls: Any) -> tuple[str, str, bool]:
    """``(name, module, builtin)`` of one class, read so that the candidate cannot fake it:
    ``builtin`` is identity with the pinned built-in of that name; a module that is not an
    ASCII dotted name (or a name that is empty or too long) is sent as ``"?"``."""
    name = str.__str__(_type_name(cls))  # a str subclass set as __name__ becomes plain text
    builtin = _BUILTIN_TYPES.get(name) is cls
    if not 0 < len(name) <= MAX_CLASS_NAME:
        name = "?"
    try:
        module = _type_module(cls)
    except AttributeError:
        module = "?"
    if (type(module) is not str or len(module) > MAX_CLASS_NAME or not module.isascii()
            or not all(part.isidentifier() for part in module.split("."))):
        module = "?"
    return name, module, builtin


def exception_info(exc: BaseException, phase: str) -> dict[str, Any]:
    """What the host learns about an exception: along its real MRO, each class's name, its
    defining module and whether it *is* the built-in class of that name; and the message.

    The host judges ``raises ValueError`` by the last of these, never by the name: a
    candidate's own ``class ValueError(Exception)`` (whatever ``__module__`` or metaclass
    it has) is not caught by a caller's ``except ValueError``, so it must not pass."""
    try:
        entries = [_class_entry(c) for c in _type_mro(type(exc))[:64]]
    except BaseException:
        entries = [("<unreadable exception class>", "?", False)]
    try:
        message = _short(str(exc))
    except BaseException:
        message = "<unprintable exception>"
    return {"mro": [e[0] for e in entries], "modules": [e[1] for e in entries],
            "builtin": [e[2] for e in entries], "message": message, "phase": phase}


def _lookup_failure(exc: BaseException) -> dict[str, Any]:
    """A failed lookup: ``SandboxUndefined`` when the candidate lacks the name (the host
    reports that once), ``SandboxLookupError`` for another lookup error of the worker's,
    else the exception the candidate's code raised while being looked up."""
    if isinstance(exc, Undefined):
        return _synthetic("SandboxUndefined", "LookupError", str(exc), "lookup")
    if isinstance(exc, LookupError):
        return _synthetic("SandboxLookupError", "LookupError", str(exc), "lookup")
    return exception_info(exc, "lookup")


def _synthetic(name: str, base: str, message: str, phase: str) -> dict[str, Any]:
    """An error of the worker's own (no such function, bad argument) in the same shape.

    Its classes are names only, never real classes: every module is ``"?"`` and none is
    a built-in, so a worker error can never pass for the candidate raising ``base``."""
    mro = [name, base, "Exception", "BaseException", "object"]
    return {"mro": mro, "modules": ["?"] * len(mro), "builtin": [False] * len(mro),
            "message": message, "phase": phase}


# --------------------------------------------------------------------------- output


class OutputBudget:
    """The bytes the candidate's streams may still forward, shared by stdout and stderr.

    Once it is spent, writes are dropped (and counted) instead of failing: a correct
    candidate that prints a lot must not see ``OSError`` from ``print`` because the log
    reached RLIMIT_FSIZE, and must not flood Docker's attach stream.  No lock: threads
    may overshoot the cap by a write or so, which costs nothing.
    """

    def __init__(self, cap: int, notice_fd: int) -> None:
        self.cap = max(int(cap), 0)
        self.left = self.cap
        self.dropped = 0
        self.notice_fd = notice_fd
        self.noticed = False
        self.next_report = 1 << 20
        """The running count goes to the log each time it doubles (a few lines in all)."""

    def write(self, fd: int, data: bytes, dropped: int = 0) -> None:
        """Forward what the budget allows of ``data``; ``dropped`` more bytes were never
        encoded (the budget was already spent)."""
        take = min(len(data), max(self.left, 0))
        self.left -= take
        if take:
            view = memoryview(data)[:take]
            try:
                while view:
                    view = view[os.write(fd, view):]
            except OSError:  # EFBIG, EPIPE, ...: the descriptor's own limits decide
                self.dropped += len(view)
        if take < len(data) or dropped:
            self.dropped += len(data) - take + dropped
            if not self.noticed:
                self.noticed = True
                self.notice(f"candidate output beyond {self.cap} bytes is dropped")
            if self.dropped >= self.next_report:
                while self.next_report <= self.dropped:
                    self.next_report *= 2
                self.notice(f"{self.dropped} bytes of candidate output dropped so far")

    def notice(self, text: str) -> None:
        """A line of the worker's own in the log, outside the budget."""
        try:
            os.write(self.notice_fd, f"\n[derivative sandbox] {text}\n".encode("ascii"))
        except OSError:  # contextlib is not loaded at start-up: no suppress()
            return


class _BudgetStream:
    """What both bounded streams answer alike: a writable, non-terminal descriptor."""

    _fd: int

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return False


class BoundedBytes(_BudgetStream, io.RawIOBase):
    """``sys.stdout.buffer``: bytes written through the shared budget."""

    def __init__(self, fd: int, budget: OutputBudget) -> None:
        super().__init__()
        self._fd = fd
        self._budget = budget

    def write(self, data: Any) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        raw = bytes(memoryview(data))
        self._budget.write(self._fd, raw)
        return len(raw)


class BoundedText(_BudgetStream, io.TextIOBase):
    """``sys.stdout`` / ``sys.stderr``: text encoded as UTF-8 and written unbuffered
    through the shared budget (nothing is lost when the sandbox is killed)."""

    encoding = "utf-8"
    errors = "backslashreplace"
    line_buffering = False
    write_through = True

    def __init__(self, fd: int, budget: OutputBudget, name: str) -> None:
        super().__init__()
        self._fd = fd
        self._budget = budget
        self._name = name
        self.buffer = BoundedBytes(fd, budget)

    @property
    def name(self) -> str:
        return self._name

    def write(self, text: Any) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file.")
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        budget = self._budget
        if budget.left <= 0 and text.isascii():  # spent: count it without copying it
            budget.write(self._fd, b"", dropped=len(text))
        else:
            budget.write(self._fd, text.encode("utf-8", "backslashreplace"))
        return len(text)

    def reconfigure(self, **_: Any) -> None:
        """Accepted and ignored (the encoding is fixed)."""


OUTPUT: OutputBudget | None = None
"""The budget of the streams installed by ``_redirect_output``."""


def _rehomed(function: Any, home: dict[str, Any]) -> Any:
    """``function`` over the namespace ``home`` instead of this module's globals."""
    import types

    fresh = types.FunctionType(function.__code__, home, function.__name__,
                               function.__defaults__, function.__closure__)
    fresh.__qualname__ = function.__qualname__
    fresh.__kwdefaults__ = function.__kwdefaults__
    return fresh


def _rehome(*classes: type, home: dict[str, Any] | None = None) -> dict[str, Any]:
    """Give classes the candidate can reach a namespace of their own.

    The candidate can always reach ``sys.stdout`` (and, past the posture, the guard's
    thread wrapper); were their methods' ``__globals__`` this module's, one attribute read
    would hand over the encoder and the channel (no audit event fires for it).  Rebuilt
    over a small dictionary, they lead nowhere.  Returns that dictionary."""
    import types

    home = home if home is not None else {}
    home.update({"__builtins__": _builtins, "os": os, "Any": Any,
                 "__name__": "_derivative_sandbox"})
    home.update((cls.__name__, cls) for cls in classes)
    for cls in classes:
        for name, member in list(vars(cls).items()):
            target = member.fget if isinstance(member, property) else member
            if not isinstance(target, types.FunctionType):
                continue
            fresh = _rehomed(target, home)
            setattr(cls, name, property(fresh) if isinstance(member, property) else fresh)
    return home


_rehome(OutputBudget, _BudgetStream, BoundedBytes, BoundedText)


# --------------------------------------------------------------------------- exploration


class _Slot:
    """An argument that stands for set-up call ``index``'s result (``{"$ref": i}``)."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class _Broken:
    """What a thread body returns when its call cannot be made (the constructor or an
    argument failed); reported as the failure ``info``."""

    __slots__ = ("info",)

    def __init__(self, info: dict[str, Any]) -> None:
        self.info = info


def _templates(raw: Any, refs_below: int, candidate: Candidate) -> list[Any]:
    """Arguments of one explored call: ``$ref`` slots (top level only) and raw values,
    each decoded once now so that a bad one fails the request, not a schedule."""
    if not isinstance(raw, list):
        raise DecodeError("arguments must be a list")
    out: list[Any] = []
    for arg in raw:
        if type(arg) is dict and list(arg) == ["$ref"]:
            index = arg["$ref"]
            if type(index) is not int or not 0 <= index < refs_below:
                raise DecodeError(f"unknown $ref {index!r:.40}")
            out.append(_Slot(index))
        else:
            decode(arg, candidate)
            out.append(arg)
    return out


def _calls(raw: Any, most: int, candidate: Candidate,
           refs: int | None) -> list[tuple[str, list[Any]]]:
    """``[[op, [args]], ...]`` checked and decoded; ``$ref`` may name the first ``refs``
    set-up calls (None: a set-up call may name the set-up calls before it)."""
    if not isinstance(raw, list) or len(raw) > most:
        raise DecodeError(f"expected a list of at most {most} calls")
    out: list[tuple[str, list[Any]]] = []
    for item in raw:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            raise DecodeError("a call must be [operation, [arguments]]")
        out.append((item[0], _templates(item[1], len(out) if refs is None else refs,
                                        candidate)))
    return out


def _cut(text: str, chars: int, lines: int | None = None) -> str:
    if lines is not None:
        rows = text.splitlines()
        if len(rows) > lines:
            text = "\n".join([*rows[: lines - 1], f"... {len(rows) - lines + 1} lines left out"])
    return text if len(text) <= chars else text[: chars - 3] + "..."


def _sized(outcome: dict[str, Any]) -> dict[str, Any]:
    """``outcome`` if its JSON fits ``OUTCOME_CAP``, else an error that does."""
    try:
        size = len(_dumps(outcome))
    except BaseException as exc:
        return {"ok": False, "exc": exception_info(exc, "encode")}
    if size <= OUTCOME_CAP:
        return outcome
    return {"ok": False, "exc": _synthetic(
        "SandboxResultTooLarge", "ValueError",
        f"the outcome was {size} bytes; the cap for an explored call is {OUTCOME_CAP}",
        "encode")}


def _returned(value: Any) -> dict[str, Any]:
    try:
        return _sized({"ok": True, "value": encode(value)})
    except BaseException as exc:
        return _sized({"ok": False, "exc": exception_info(exc, "encode")})


class Exploration:
    """One search of the explorer in progress: the plan, the per-schedule state, and the
    generator of runs (``forge/inside/_explore.py``'s ``runs``)."""

    def __init__(self, candidate: Candidate, cls: Any, setup: list[tuple[str, list[Any]]],
                 calls: list[tuple[str, list[Any]]], batch: int) -> None:
        self.candidate = candidate
        self.cls = cls
        self.setup = setup
        self.calls = calls
        self.batch = batch
        self.runs: Any = None
        self.setup_out: list[dict[str, Any]] = []
        self.args: list[Any] = []

    def _materialise(self, templates: list[Any], results: list[Any]) -> list[Any]:
        return [results[t.index] if isinstance(t, _Slot) else decode(t, self.candidate)
                for t in templates]

    def fresh(self) -> Any:
        """A fresh instance with the set-up calls made (the explorer's ``setup``); runs
        in the worker's main thread, before the schedule's threads start."""
        try:
            obj = self.cls()
        except BaseException as exc:
            info = exception_info(exc, "call")
            self.setup_out = [{"ok": False, "exc": info}]
            self.args = [_Broken(info) for _ in self.calls]
            return _Broken(info)
        outcomes: list[dict[str, Any]] = []
        results: list[Any] = []
        for op, templates in self.setup:
            try:
                args = self._materialise(templates, results)
            except BaseException as exc:
                outcomes.append({"ok": False, "exc": _synthetic(
                    "SandboxDecodeError", "ValueError", str(exc), "decode")})
                results.append(None)
                continue
            try:
                value = getattr(obj, op)(*args)
            except BaseException as exc:
                outcomes.append({"ok": False, "exc": exception_info(exc, "call")})
                results.append(None)
                continue
            outcomes.append(_returned(value))
            results.append(value)
        self.setup_out = outcomes
        self.args = []
        for _, templates in self.calls:
            try:
                self.args.append(self._materialise(templates, results))
            except BaseException as exc:
                self.args.append(_Broken(_synthetic("SandboxDecodeError", "ValueError",
                                                    str(exc), "decode")))
        return obj

    def body(self, index: int) -> Callable[[Any], Any]:
        """Thread ``index``'s body: its call on the schedule's instance.  Exceptions are
        left to the explorer, which records them (and unwinds a stopped run)."""
        op = self.calls[index][0]

        def run(obj: Any) -> Any:
            if isinstance(obj, _Broken):
                return obj
            args = self.args[index]
            if isinstance(args, _Broken):
                return args
            return getattr(obj, op)(*args)

        return run

    def encode_run(self, run: Any) -> dict[str, Any]:
        outcomes: list[dict[str, Any]] = []
        for result in run.results:
            status = str(result.status)
            if status == "returned":
                value = result.value
                outcomes.append(_sized({"ok": False, "exc": value.info})
                                if isinstance(value, _Broken) else _returned(value))
            elif status == "raised" and result.error is not None:
                outcomes.append(_sized({"ok": False,
                                        "exc": exception_info(result.error, "call")}))
            else:  # deadlocked / aborted: the thread never finished
                name = "Thread" + status.capitalize()
                outcomes.append({"ok": False, "exc": _synthetic(name, "RuntimeError", status,
                                                                "call")})
        try:
            schedule = _cut(str(run.summary()), SCHEDULE_CHARS)
        except BaseException as exc:
            schedule = f"<schedule unavailable: {type(exc).__name__}>"
        try:
            trace = _cut(str(run.trace_text(max_lines=TRACE_LINES)), TRACE_CHARS,
                         TRACE_LINES + MAX_EXPLORE_CALLS + 4)
        except BaseException as exc:
            trace = f"<trace unavailable: {type(exc).__name__}>"
        return {"schedule": schedule, "setup": [_sized(o) for o in self.setup_out],
                "outcomes": outcomes, "trace": trace, "deadlock": bool(run.deadlock)}

    def close(self) -> None:
        runs, self.runs = self.runs, None
        if runs is not None:
            try:
                runs.close()  # the explorer's own clean-up (its threads, its monitor)
            except BaseException:
                return


# --------------------------------------------------------------------------- coverage
#
# Which lines and arcs of the candidate's own files ran (issue 13, "candidate coverage as
# evidence").  The tracer is set up in the runner by ``load``, before the candidate is
# imported and before the guard closes, so its own ``sys.settrace`` (or its
# ``sys.monitoring`` tool) raises no event the guard would refuse; the candidate's own
# tracing stays refused (``sys.settrace``, ``sys.setprofile``,
# ``sys.monitoring.register_callback``).  Only code objects whose file lies below the
# candidate's folder are followed: everything else (this worker, the standard library)
# costs one look-up per code object.  ``sys.gettrace`` answers None afterwards, so the
# tracer cannot be fetched from ``sys``; its functions run over a namespace of their own
# (``_rehomed``), and what they record sits in their closure only.  The host trusts none
# of it (``forge/run/_coverage.py``): every line is checked against the candidate's source,
# which the host parses itself, and the figures only count lines the host itself found
# executable.  On Python < 3.12 ``sys.settrace`` gives lines and arcs (``(last line, line)``
# in one frame, the entry and exit as ``-co_firstlineno``); on 3.12+ ``sys.monitoring``
# gives lines (each disabled once seen) and branches, reported as the arc from the
# branch's line to the first other line its destination reaches.  Interleavings explored
# on threads are measured on 3.12+ only (the explorer owns its threads' tracer before).

COVERAGE_TOOL = 1
"""``sys.monitoring.COVERAGE_ID``."""

MAX_COVERAGE_ITEMS = 40_000
"""Lines and arcs in one ``coverage`` answer at most (the rest comes with the next)."""


def _coverage_functions(folder: str, sys: Any, monitoring: Any) -> tuple[Any, Any]:
    """``(start, take)``: ``start()`` installs the tracer; ``take(most)`` hands over what
    was recorded since the last ``take`` (at most ``most`` items) and forgets it."""
    lines: dict[Any, set[int]] = {}
    arcs: dict[Any, set[tuple[int, int]]] = {}
    mine_of: dict[Any, bool] = {}
    abspath = os.path.abspath
    prefix = abspath(folder) + os.sep

    def mine(code: Any) -> bool:
        known = mine_of.get(code)
        if known is None:
            name = code.co_filename
            known = mine_of[code] = (type(name) is str and not name.startswith("<")
                                     and abspath(name).startswith(prefix))
        return known

    def sets(code: Any) -> tuple[set[int], set[tuple[int, int]]]:
        seen = lines.get(code)
        if seen is None:
            seen = lines[code] = set()
        went = arcs.get(code)
        if went is None:
            went = arcs[code] = set()
        return seen, went

    def global_trace(frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        if event != "call" or not mine(code):
            return None
        seen, went = sets(code)
        first = -code.co_firstlineno
        last = first

        def local_trace(frame: Any, event: str, arg: Any) -> Any:
            nonlocal last
            if event == "line":
                line = frame.f_lineno
                seen.add(line)
                went.add((last, line))
                last = line
            elif event == "return":
                went.add((last, first))
            return local_trace

        return local_trace

    branches: dict[Any, set[tuple[int, int]]] = {}

    def on_start(code: Any, offset: int) -> Any:
        if mine(code):
            events = monitoring.events
            monitoring.set_local_events(COVERAGE_TOOL, code, events.LINE | _branch_events(events))
        return monitoring.DISABLE

    def on_line(code: Any, line: int) -> Any:
        sets(code)[0].add(line)
        return monitoring.DISABLE

    def on_branch(code: Any, src: int, dst: int) -> Any:
        pairs = branches.get(code)
        if pairs is None:
            pairs = branches[code] = set()
        pairs.add((src, dst))
        return None

    def start() -> str:
        if monitoring is None:
            sys.settrace(global_trace)
            sys.gettrace = _no_trace
            return "settrace"
        events = monitoring.events
        monitoring.use_tool_id(COVERAGE_TOOL, "derivative-coverage")
        monitoring.register_callback(COVERAGE_TOOL, events.PY_START, on_start)
        monitoring.register_callback(COVERAGE_TOOL, events.LINE, on_line)
        for event in _branch_list(events):
            monitoring.register_callback(COVERAGE_TOOL, event, on_branch)
        monitoring.set_events(COVERAGE_TOOL, events.PY_START)
        return "monitoring"

    def take(most: int) -> dict[str, Any]:
        for code, pairs in list(branches.items()):
            went = sets(code)[1]
            where = _line_table(code)
            for src, dst in pairs:
                went.add(_branch_arc(where, src, dst, -code.co_firstlineno))
            pairs.clear()
        files: dict[str, Any] = {}
        left = most
        table: dict[Any, Any]
        for table, key in ((lines, "lines"), (arcs, "arcs")):
            for code, items in table.items():
                if not items or left <= 0:
                    continue
                name = os.path.relpath(abspath(code.co_filename), prefix).replace(os.sep, "/")
                bucket = files.setdefault(name, {"lines": [], "arcs": []})[key]
                while items and left > 0:
                    item: Any = items.pop()
                    bucket.append(list(item) if key == "arcs" else item)
                    left -= 1
        more = any(lines.values()) or any(arcs.values())
        return {"files": files, "more": more}

    return start, take


def _no_trace() -> None:
    """``sys.gettrace`` once the coverage tracer is in: nothing to see."""
    return None


def _branch_events(events: Any) -> int:
    mask = 0
    for event in _branch_list(events):
        mask |= event
    return mask


def _branch_list(events: Any) -> list[int]:
    """``BRANCH_LEFT`` and ``BRANCH_RIGHT`` where they exist (3.14), else ``BRANCH``."""
    left = getattr(events, "BRANCH_LEFT", None)
    return [left, events.BRANCH_RIGHT] if left is not None else [events.BRANCH]


def _line_table(code: Any) -> list[tuple[int, int, int]]:
    """``(start, end, line)`` of each instruction range that has a line, in order."""
    return [(s, e, line) for s, e, line in code.co_lines() if line is not None]


def _branch_arc(where: list[tuple[int, int, int]], src: int, dst: int,
                exit_line: int) -> tuple[int, int]:
    """A branch event as an arc: from the line of ``src`` to the first line other than it
    that the code from ``dst`` on reaches (straight on, as laid out), else the exit."""
    here = next((line for s, e, line in where if s <= src < e), exit_line)
    for _, e, line in where:
        if e > dst and line != here:
            return here, line
    return here, exit_line


class Tracing:
    """The runner's coverage tracer: ``start`` before the candidate is imported, ``take``
    for the ``coverage`` request."""

    def __init__(self, folder: str) -> None:
        home: dict[str, Any] = {"__builtins__": _builtins, "os": os, "Any": Any,
                                "__name__": "_derivative_sandbox", "COVERAGE_TOOL": COVERAGE_TOOL}
        for function in (_no_trace, _branch_events, _branch_list, _line_table, _branch_arc):
            home[function.__name__] = _rehomed(function, home)
        make = _rehomed(_coverage_functions, home)
        self.mode = ""
        self._start, self._take = make(folder, sys, getattr(sys, "monitoring", None))

    def start(self) -> None:
        self.mode = self._start()

    def take(self) -> dict[str, Any]:
        taken: dict[str, Any] = self._take(MAX_COVERAGE_ITEMS)
        return taken


# --------------------------------------------------------------------------- requests


def _number(value: Any, what: str, low: float, high: float) -> float:
    if type(value) not in (int, float) or not low <= value <= high:
        raise DecodeError(f"{what} must be a number in [{low:g}, {high:g}]")
    return float(value)


class Worker:
    """Dispatches requests; holds the candidate once ``load`` succeeded."""

    def __init__(self, channel: Channel, candidate_dir: str, module: str) -> None:
        self.channel = channel
        self.candidate_dir = candidate_dir
        self.tools_dir = os.path.dirname(os.path.abspath(__file__))
        self.module_name = module
        self.candidate: Candidate | None = None
        self.exploration: Exploration | None = None
        self.explorer: Any = None
        self.alarm_fd: int | None = None
        self.tracing: Tracing | None = None

    def reply(self, rid: Any, value: Any) -> None:
        self.channel.send({"id": rid, "ok": True, "value": value})

    def fail(self, rid: Any, info: dict[str, Any]) -> None:
        self.channel.send({"id": rid, "ok": False, "exc": info})

    def load(self, rid: Any, request: dict[str, Any]) -> None:
        args = request.get("args") or {}
        binds = args.get("binds") or {}
        module_name = request.get("target") or self.module_name
        if self.candidate_dir not in sys.path:
            sys.path.insert(0, self.candidate_dir)
        sys.dont_write_bytecode = True
        hide_worker()
        if args.get("coverage") and self.tracing is None:
            self.tracing = Tracing(self.candidate_dir)
            self.tracing.start()  # before the guard closes: the candidate's own stays refused
        if args.get("guard"):
            explorer = os.path.join(self.tools_dir, EXPLORER_FILE)
            install_guard(Guard(self.alarm_fd, [self.candidate_dir, self.tools_dir],
                                {explorer: "@explorer"}))
        try:
            module = importlib.import_module(module_name)
        except BaseException as exc:
            self.fail(rid, exception_info(exc, "load"))
            return
        self.candidate = Candidate(module, {str(k): str(v) for k, v in binds.items()})
        self.reply(rid, {"module": module_name})

    def invoke(self, rid: Any, request: dict[str, Any]) -> None:
        candidate = self.candidate
        if candidate is None:
            self.fail(rid, _synthetic("SandboxNotLoaded", "RuntimeError",
                                      "no candidate loaded", "lookup"))
            return
        op = request.get("op")
        target = str(request.get("target"))
        raw_args = request.get("args") or []
        function: Callable[..., Any]
        try:
            if op == "call":
                function = candidate.resolve(target)
                if not callable(function):
                    raise Undefined(f"the candidate's {target} is not a function")
            elif op == "new_instance":
                function = candidate.resolve(target)
                if not isinstance(function, type):
                    raise Undefined(f"the candidate's {target} is not a class")
            else:
                handle = request.get("instance")
                if handle not in candidate.instances:
                    raise LookupError(f"no instance {handle!r}")
                instance = candidate.instances[handle]
                try:
                    function = getattr(instance, target)
                except AttributeError:
                    raise Undefined(f"the candidate's {type(instance).__name__} has no method "
                                    f"{target}") from None
                if not callable(function):
                    raise Undefined(f"the candidate's {type(instance).__name__}.{target} is "
                                    "not a method")
        except BaseException as exc:
            self.fail(rid, _lookup_failure(exc))
            return
        try:
            args = [decode(a, candidate) for a in raw_args]
        except BaseException as exc:
            self.fail(rid, _synthetic("SandboxDecodeError", "ValueError", str(exc), "decode"))
            return
        try:
            result = function(*args)
        except BaseException as exc:
            self.fail(rid, exception_info(exc, "call"))
            return
        try:
            if op == "new_instance":
                handle = candidate.next_handle
                candidate.next_handle += 1
                candidate.instances[handle] = result
                encoded: Any = {"$instance": handle}
            else:
                encoded = encode(result)
        except BaseException as exc:
            self.fail(rid, exception_info(exc, "encode"))
            return
        self.reply(rid, encoded)

    # ------------------------------------------------------------------ exploration

    def load_explorer(self) -> Any:
        """The explorer module, loaded by path from beside the candidate's folder.

        Not imported by name: the candidate's folder is first on ``sys.path`` and
        ``sys.modules`` is the candidate's to change, so neither is consulted."""
        if self.explorer is None:
            import importlib.util

            path = os.path.join(self.tools_dir, EXPLORER_FILE)
            spec = importlib.util.spec_from_file_location(EXPLORER_MODULE, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load the explorer from {path}")
            module = importlib.util.module_from_spec(spec)
            # registered while it runs: its dataclasses look their module up there
            sys.modules[EXPLORER_MODULE] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(EXPLORER_MODULE, None)
                raise
            self.explorer = module
        return self.explorer

    def close_exploration(self) -> bool:
        exploration, self.exploration = self.exploration, None
        if exploration is None:
            return False
        exploration.close()
        return True

    def explore(self, rid: Any, request: dict[str, Any]) -> None:
        """Start a search (discarding any other) and answer with its first runs."""
        self.close_exploration()
        candidate = self.candidate
        if candidate is None:
            self.fail(rid, _synthetic("SandboxNotLoaded", "RuntimeError",
                                      "no candidate loaded", "lookup"))
            return
        args = request.get("args")
        try:
            if not isinstance(args, dict):
                raise DecodeError("explore arguments must be an object")
            setup = _calls(args.get("setup"), MAX_EXPLORE_SETUP, candidate, None)
            calls = _calls(args.get("calls"), MAX_EXPLORE_CALLS, candidate, len(setup))
            if not calls:
                raise DecodeError("at least one concurrent call is needed")
            limit = int(_number(args.get("limit"), "limit", 1, 1_000_000))
            timeout = _number(args.get("timeout"), "timeout", 0.001, 3600)
            batch = int(_number(args.get("batch"), "batch", 1, MAX_EXPLORE_BATCH))
        except DecodeError as exc:
            self.fail(rid, _synthetic("SandboxDecodeError", "ValueError", str(exc), "decode"))
            return
        target = str(request.get("target"))
        try:
            cls = candidate.resolve(target)
            if not isinstance(cls, type):
                raise Undefined(f"the candidate's {target} is not a class")
        except BaseException as exc:
            self.fail(rid, _lookup_failure(exc))
            return
        try:
            explorer = self.load_explorer()
        except BaseException as exc:
            self.fail(rid, _synthetic("SandboxExplorerUnavailable", "ImportError",
                                      f"{type(exc).__name__}: {exc}", "lookup"))
            return
        exploration = Exploration(candidate, cls, setup, calls, batch)
        folder = os.path.abspath(self.candidate_dir) + os.sep

        def trace_filter(filename: str) -> bool:
            # scheduling points in the candidate's own files only: the worker's glue
            # and the standard library run atomically
            return (bool(filename) and not filename.startswith("<")
                    and os.path.abspath(filename).startswith(folder))

        exploration.runs = explorer.runs(
            exploration.fresh,
            [exploration.body(i) for i in range(len(calls))],
            max_schedules=limit,
            max_preemptions=2,
            timeout=timeout,
            trace_filter=trace_filter,
            names=[f"thread {i + 1}" for i in range(len(calls))],
            modules=[candidate.module],
        )
        self.exploration = exploration
        self.explore_batch(rid)

    def explore_batch(self, rid: Any) -> None:
        """The next runs of the search in progress: up to its batch size, and no more
        than ``EXPLORE_BATCH_BYTES`` (one run always fits)."""
        exploration = self.exploration
        if exploration is None or exploration.runs is None:
            self.fail(rid, _synthetic("SandboxProtocolError", "ValueError",
                                      "no exploration in progress", "protocol"))
            return
        runs: list[dict[str, Any]] = []
        size = 0
        more = True
        try:
            while len(runs) < exploration.batch and size < EXPLORE_BATCH_BYTES:
                try:
                    run = next(exploration.runs)
                except StopIteration:
                    more = False
                    break
                entry = exploration.encode_run(run)
                size += len(_dumps(entry))
                runs.append(entry)
                if run.exhausted:
                    more = False
                    break
        except BaseException as exc:
            self.close_exploration()
            self.fail(rid, exception_info(exc, "protocol"))
            return
        if not more:
            self.close_exploration()
        self.reply(rid, {"runs": runs, "more": more})

    def serve(self) -> int:
        """Answer requests until the host closes the channel (the runner's loop)."""
        try:
            return self._serve()
        finally:
            self.close_exploration()
            if OUTPUT is not None and OUTPUT.dropped:
                OUTPUT.notice(f"{OUTPUT.dropped} bytes of candidate output were dropped")

    def _serve(self) -> int:
        while True:
            try:
                request = self.channel.read()
            except (ValueError, UnicodeDecodeError) as exc:
                self.fail(None, _synthetic("SandboxProtocolError", "ValueError", str(exc),
                                           "protocol"))
                return 3
            if request is None:
                return 0
            self.dispatch(request)

    def dispatch(self, request: dict[str, Any]) -> None:
        """Answer one request."""
        rid = request.get("id")
        op = request.get("op")
        if op == "load":
            self.load(rid, request)
        elif op in ("call", "new_instance", "method"):
            self.invoke(rid, request)
        elif op == "explore":
            self.explore(rid, request)
        elif op == "explore_next":
            self.explore_batch(rid)
        elif op == "explore_close":
            self.reply(rid, {"closed": self.close_exploration()})
        elif op == "coverage":
            if self.tracing is None:
                self.fail(rid, _synthetic("SandboxProtocolError", "ValueError",
                                          "coverage was not asked for at load", "protocol"))
            else:
                self.reply(rid, self.tracing.take())
        else:
            self.fail(rid, _synthetic("SandboxProtocolError", "ValueError",
                                      f"unknown op {op!r}", "protocol"))


# --------------------------------------------------------------------------- judge and runner
#
# The descriptor that carries frames *to* the host is never in a process that runs
# candidate code.  Once the sandbox is set up the worker forks: the child (the *runner*)
# keeps only the channel's request side (requests are sent one at a time, after the
# previous answer, so reading one early only starves its own worker), closes the answer
# side, installs the guard before the candidate is imported and writes its answers into
# a private pipe; the parent (the *judge*) makes itself undumpable (so the runner, same
# id, can neither ptrace it nor open ``/proc/JUDGE/fd``), checks the shape of each
# answer and writes it to the host itself.  When the runner dies the judge reads the
# alarm pipe: a guard refusal becomes a ``guard`` answer, anything else a crash (the
# judge exits and the host sees the channel close, as before).  Requests go straight to
# the runner because each hop through another process costs a wake-up (tens of
# microseconds on a virtual machine) on every call.  What this does not do: a candidate
# that escapes the restricted language can still misreport its own results over its
# private pipe; the posture and the guard are what stop that (docs/threat-model.md).

PR_SET_DUMPABLE = 4


def _undumpable() -> bool:
    """``prctl(PR_SET_DUMPABLE, 0)``: the judge's ``/proc`` entries become root's."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(ctypes.c_int(PR_SET_DUMPABLE), ctypes.c_ulong(0),
                               ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) == 0)
    except Exception:  # no ctypes in a minimal image: the seccomp filter still holds
        return False


def _answer_ok(answer: dict[str, Any]) -> bool:
    """The shape of a runner's answer; the host checks ids, values and exceptions in depth.
    ``guard`` and ``forged`` are the judge's words and never the runner's."""
    if type(answer.get("id")) is not int and answer.get("id") is not None:
        return False
    if answer.get("ok") is True:
        return set(answer) == {"id", "ok", "value"}
    return answer.get("ok") is False and set(answer) == {"id", "ok", "exc"} and isinstance(
        answer.get("exc"), dict)


class Judge:
    """The parent side: starts the runner and vets every answer it sends to the host."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.host = worker.channel
        self.runner: Channel | None = None
        self.pid = 0
        self.alarm = -1

    def serve(self, pending: dict[str, Any] | None) -> int:
        """Fork the runner (it reads the host's requests itself, ``pending`` first), then
        pass on its answers until it ends."""
        from_r, from_w = os.pipe()
        alarm_r, alarm_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                for fd in (self.host.wfd, from_r, alarm_r):
                    os.close(fd)
                self.worker.channel = Channel(self.host.rfd, from_w)
                self.worker.alarm_fd = alarm_w
                sys.argv[:] = [""]
                if pending is not None:
                    self.worker.dispatch(pending)
                code = self.worker.serve()
            finally:
                _os_exit(code)
        for fd in (from_w, alarm_w, self.host.rfd):
            os.close(fd)
        self.pid = pid
        self.alarm = alarm_r
        self.runner = Channel(from_r, -1)
        _undumpable()
        return self.vet()

    def vet(self) -> int:
        """Each answer of the runner, checked for shape and written by the judge itself."""
        runner = self.runner
        assert runner is not None
        while True:
            try:
                answer = runner.read()
            except (ValueError, UnicodeDecodeError) as exc:
                self.forged(f"a malformed frame ({_short(str(exc))})")
                return 3
            except OSError:
                answer = None
            if answer is None:
                return self.runner_ended()
            if not _answer_ok(answer):
                self.forged("an answer of the wrong shape")
                return 3
            self.host.send(answer)

    def forged(self, what: str) -> None:
        """Something wrote into the runner's pipe besides the runner's worker: tell the
        host (it taints the session, as for a forged frame on the channel) and stop."""
        self.kill()
        self.host.send({"id": None, "ok": False, "forged": _short(
            f"the judge caught {what} on the runner's pipe")})

    def runner_ended(self) -> int:
        """The runner is gone: after the host's end of input that is the normal end; a
        guard refusal is reported (as the answer to the pending request); anything else
        is a crash, which the host sees as the channel closing."""
        status = self.kill()
        try:
            alarm = os.read(self.alarm, 600)
        except OSError:
            alarm = b""
        if alarm or status == GUARD_EXIT:
            event, _, where = alarm.decode("ascii", "replace").strip().partition("\t")
            self.host.send({"id": None, "ok": False, "guard": {
                "event": _short(event) or "unknown (the alarm was silenced)",
                "where": _short(where)}})
            return 0
        return status if 0 <= status < 256 else 1

    def kill(self) -> int:
        """Stop the runner (if it still runs) and reap it; its exit status."""
        try:  # noqa: SIM105 - contextlib is not loaded in the worker
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return 1
        return os.waitstatus_to_exitcode(status)


# --------------------------------------------------------------------------- the runtime guard
#
# The second layer behind the static posture (docs/threat-model.md): a PEP 578 audit hook,
# installed in the runner before the candidate is imported, that ends the runner on any
# audited operation the judged code has no business doing.  Audit events are the
# interpreter's own list of sensitive operations, so the rule is an allow-list: an event
# passes when it is harmless anywhere (``GUARD_FREE``), when it is a read-only ``open``
# below the folders the run needs, or when the Python function that raised it is one of
# the standard library's (or the explorer's) known call sites for that event
# (``GUARD_SITES``: ``typing`` asks ``sys._getframe`` for a module name, the import
# system compiles and executes module code, ``namedtuple`` evaluates the text it built).
# The site is the innermost Python frame, found by the hook itself: a C function cannot
# be a site, so handing ``gc.get_objects`` to the worker as a ``__repr__`` is refused too.
# A refusal is not an exception the candidate could catch: the hook writes the event to
# the judge's alarm pipe and ends the runner at once with ``GUARD_EXIT``.

GUARD_EXIT = 86
"""The runner's exit status after a refusal (with or without a readable alarm)."""

GUARD_FREE = frozenset({
    "import", "builtins.id", "time.sleep", "sys._getframemodulename", "sys.excepthook",
    "sys.unraisablehook", "array.__new__", "locale.setlocale", "cpython.PyInterpreterState_Clear",
    "cpython._PySys_ClearAuditHooks", "hashlib.new", "random.seed",
})
"""Events that give nothing away wherever they come from."""

GUARD_SITES: dict[str, frozenset[str]] = {
    # the import system and module start-up
    "exec": frozenset({"importlib._bootstrap:_call_with_frames_removed",
                       "importlib._bootstrap:exec_module",
                       "collections/__init__.py:namedtuple", "dataclasses.py:_create_fn",
                       "typing.py:_make_nmtuple", "enum.py:_create_"}),
    "compile": frozenset({"importlib._bootstrap_external:source_to_code",
                          "importlib._bootstrap:_call_with_frames_removed",
                          "collections/__init__.py:namedtuple", "dataclasses.py:_create_fn"}),
    "marshal.loads": frozenset({"importlib._bootstrap_external:_compile_bytecode"}),
    "os.listdir": frozenset({"importlib._bootstrap_external:_fill_cache"}),
    "os.scandir": frozenset({"importlib._bootstrap_external:_fill_cache"}),
    # the standard library asks for a module name or a function's code
    "sys._getframe": frozenset({"typing.py:_caller", "collections/__init__.py:namedtuple",
                                "enum.py:_create_", "enum.py:__call__", "enum.py:_convert_",
                                "functools.py:singledispatch", "@explorer"}),
    "object.__getattr__": frozenset({"@explorer"}),
    "object.__setattr__": frozenset({"stdlib:<module>", "collections/__init__.py:namedtuple",
                                     "dataclasses.py:_set_qualname",
                                     "dataclasses.py:_process_class",
                                     "dataclasses.py:_add_slots",
                                     "dataclasses.py:_set_new_attribute",
                                     "typing.py:_make_nmtuple", "typing.py:__new__",
                                     "enum.py:__new__", "enum.py:_create_", "abc.py:__new__",
                                     "functools.py:update_wrapper", "@explorer"}),
    # the explorer traces the candidate's threads; nothing else may
    "sys.settrace": frozenset({"@explorer", "threading.py:_bootstrap_inner"}),
    "_thread.start_new_thread": frozenset({"threading.py:start@explorer"}),
}
"""``event -> sites`` where ``site`` is ``FILE:FUNCTION`` (``FILE`` relative to the
standard library, or a frozen module's name, or ``@explorer``), optionally followed by
``@explorer`` when the site's own caller must be the explorer."""

FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
"""Audited attribute reads that hand out a frame (and with it every caller's globals)."""

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _stdlib_dir() -> str:
    """The standard library's folder, from a package the worker imported before any
    candidate code ran (``json``)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(json.__file__))) + os.sep


class Guard:
    """The audit hook's state: where the run's files are and what to do on a refusal."""

    def __init__(self, alarm_fd: int | None, roots: list[str], trusted: dict[str, str],
                 learn: bool = False) -> None:
        self.alarm_fd = alarm_fd
        self.stdlib = _stdlib_dir()
        self.roots = (*(os.path.abspath(r).rstrip(os.sep) + os.sep for r in roots),
                      self.stdlib)
        self.trusted = {os.path.abspath(k): v for k, v in trusted.items()}
        self.learn = learn

    def site(self, frame: Any) -> str | None:
        """``FILE:FUNCTION`` of a frame of the standard library or the explorer, else None."""
        if frame is None:
            return None
        code = frame.f_code
        filename = code.co_filename
        if filename.startswith("<frozen ") and filename.endswith(">"):
            return f"{filename[8:-1]}:{code.co_name}"
        if filename.startswith(self.stdlib):
            return f"{filename[len(self.stdlib):]}:{code.co_name}"
        tag = self.trusted.get(filename)
        return f"{tag}:{code.co_name}" if tag is not None else None

    def allowed(self, event: str, args: tuple[Any, ...], frame: Any) -> str | None:
        """None when the event may go ahead, else the site that raised it (for the alarm)."""
        if event == "open":
            return None if self._readonly_open(args) else self._where(frame)
        if event == "object.__setattr__" and len(args) >= 2 and not _dunder(args[1]):
            return None
        if event == "object.__getattr__" and len(args) >= 2 and args[1] not in FRAME_ATTRS:
            return None  # a function's code or a generator's: nothing without a frame
        sites = GUARD_SITES.get(event)
        here = self.site(frame)
        if sites and here is not None:
            if here in sites or here.split(":", 1)[0] in sites:
                return None
            if here.endswith(":<module>") and "stdlib:<module>" in sites and not \
                    here.startswith("@"):
                return None
            outer = self.site(frame.f_back)
            if outer is not None and f"{here}{outer.split(':', 1)[0]}" in sites:
                return None
        return self._where(frame)

    def _readonly_open(self, args: tuple[Any, ...]) -> bool:
        path, mode, flags = (*args, None, None, None)[:3]
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            return False
        if isinstance(flags, int) and flags & _WRITE_FLAGS:
            return False
        if isinstance(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance(path, str):
            return False
        full = os.path.realpath(path)
        return any((full + os.sep).startswith(root) for root in self.roots)

    def _where(self, frame: Any) -> str:
        if frame is None:
            return "no Python frame"
        code = frame.f_code
        return f"{_short(str(code.co_filename))}:{frame.f_lineno} in {code.co_name}"

    def refuse(self, event: str, where: str) -> None:
        """Tell the judge and end the runner; nothing the candidate does can catch this."""
        line = f"{event}\t{where}"[:500].encode("ascii", "backslashreplace") + b"\n"
        if self.learn:
            _os_write(2, b"[guard] " + line)
            return
        if self.alarm_fd is not None:
            try:  # noqa: SIM105 - the exit below is what matters
                _os_write(self.alarm_fd, line)
            except OSError:
                pass
        _os_exit(GUARD_EXIT)


def _dunder(name: Any) -> bool:
    return isinstance(name, str) and name.startswith("__") and name.endswith("__")


def _guard_home() -> dict[str, Any]:
    """The namespace the guard's code runs over (``_rehome``): what it uses, no more."""
    home = _rehome(Guard)
    home.update({"json": json, "sys": sys, "GUARD_SITES": GUARD_SITES, "GUARD_FREE": GUARD_FREE,
                 "FRAME_ATTRS": FRAME_ATTRS, "_WRITE_FLAGS": _WRITE_FLAGS,
                 "GUARD_EXIT": GUARD_EXIT, "_os_write": _os_write, "_os_exit": _os_exit,
                 "MAX_TEXT": MAX_TEXT})
    for function in (_short, _dunder, _stdlib_dir, _guard_functions):
        home[function.__name__] = _rehomed(function, home)
    return home


def _guard_functions(guard: Guard, real_start: Any) -> tuple[Any, Any]:
    """The audit hook and the thread-start wrapper, closed over ``guard`` only.

    Python 3.11 raises no audit event when a thread starts, and a thread is what lets a
    candidate act on the runner's pipes after its call returned; so ``_thread``'s start
    functions are replaced by a wrapper that asks the guard first (the explorer's
    threads, started by ``threading.Thread.start`` from the explorer, are allowed)."""
    import _thread

    busy: set[int] = set()
    get_ident = _thread.get_ident
    getframe = sys._getframe
    free = GUARD_FREE

    def check(event: str, args: tuple[Any, ...], depth: int) -> None:
        me = get_ident()
        if me in busy:  # the guard's own sys._getframe
            return
        busy.add(me)
        try:
            try:
                where = guard.allowed(event, args, getframe(depth + 1))
            except BaseException as exc:  # fail closed
                where = f"the guard failed: {type(exc).__name__}"
        finally:
            busy.discard(me)
        if where is not None:
            guard.refuse(event, where)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event not in free:
            check(event, args, 1)

    def start_new_thread(function: Any, args: Any, kwargs: Any = None) -> Any:
        check("_thread.start_new_thread", (), 1)
        if kwargs is None:
            return real_start(function, args)
        return real_start(function, args, kwargs)

    return hook, start_new_thread


def install_guard(guard: Guard) -> None:
    """Add the audit hook (it cannot be removed, by anyone, for the process's life) and
    put the guarded thread start in place of ``_thread``'s (and ``threading``'s copy)."""
    import _thread

    home = _guard_home()
    hook, start = home["_guard_functions"](guard, _thread.start_new_thread)
    _thread.start_new_thread = start
    _thread.start_new = start
    threading = _modules_get("threading")
    if threading is not None:
        threading._start_new_thread = start  # type: ignore[attr-defined]
    sys.addaudithook(hook)


# --------------------------------------------------------------------------- isolation set-up

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MNT_DETACH = 2

ST_TO_MS = {1: MS_RDONLY, 2: MS_NOSUID, 4: MS_NODEV, 8: MS_NOEXEC, 1024: MS_NOATIME,
            2048: MS_NODIRATIME, 4096: MS_RELATIME}
"""statvfs ``f_flag`` bits -> mount flags, to keep a bind mount's locked flags on remount."""

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

SECCOMP_REFUSED: dict[str, tuple[int, int | None]] = {  # name: (x86_64, aarch64)
    # namespaces and mounts: a new user namespace gives every capability inside it, the
    # first step of most container escapes; the mount calls (old and new API) rebuild a view
    "unshare": (272, 97), "setns": (308, 268), "mount": (165, 40), "umount2": (166, 39),
    "pivot_root": (155, 41), "chroot": (161, 51), "open_tree": (428, 428),
    "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431),
    "fsmount": (432, 432), "fspick": (433, 433), "mount_setattr": (442, 442),
    # other processes' memory and descriptors
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "pidfd_getfd": (438, 438), "move_pages": (279, 239), "migrate_pages": (256, 238),
    # kernel attack surface that exploits lean on: BPF, perf, userfaultfd, io_uring
    "bpf": (321, 280), "perf_event_open": (298, 241), "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    # the keyring is per user id, not per namespace: id 65534 shares it with the host
    "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218),
    # the kernel, the machine, the clock, file handles (capabilities guard these already)
    "init_module": (175, 105), "finit_module": (313, 273), "delete_module": (176, 106),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294), "reboot": (169, 142),
    "open_by_handle_at": (304, 265), "name_to_handle_at": (303, 264), "acct": (163, 89),
    "swapon": (167, 224), "swapoff": (168, 225), "quotactl": (179, 60),
    "quotactl_fd": (443, 443), "settimeofday": (164, 170), "clock_settime": (227, 112),
    "adjtimex": (159, 171), "clock_adjtime": (305, 266), "ioperm": (173, None),
    "iopl": (172, None), "syslog": (103, 116), "lookup_dcookie": (212, 18),
    "fanotify_init": (300, 262),
}
"""System calls the seccomp filter answers with EPERM: only an escape needs them."""

SECCOMP_ARCH = {"x86_64": (0, 0xC000003E), "aarch64": (1, 0xC00000B7)}
"""machine -> (column of ``SECCOMP_REFUSED``, AUDIT_ARCH_*)."""
SYS_CLONE = (56, 220)
SYS_CLONE3 = (435, 435)
CLONE_NEWCGROUP = 0x02000000
CLONE_NAMESPACES = (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC
                    | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203,
                  "s390x": 217, "armv7l": 218}
SYS_CAPSET = {"x86_64": 126, "aarch64": 91, "riscv64": 91, "ppc64le": 184,
              "s390x": 185, "armv7l": 185}

NAMESPACE_FLAGS = {"user": CLONE_NEWUSER, "mount": CLONE_NEWNS, "network": CLONE_NEWNET,
                   "pid": CLONE_NEWPID, "ipc": CLONE_NEWIPC, "uts": CLONE_NEWUTS}


class SetupError(Exception):
    """A step of the isolation set-up failed; reported to the host, which decides."""


# ctypes and resource are imported only by the set-up (the process backend): a minimal image
# may lack them, and the Docker backend never asks for a set-up.


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        import ctypes

        code = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(code)} (errno {code})")


def _mount(libc: Any, source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    import ctypes

    _check(libc.mount(source.encode() if source else None, target.encode(),
                      fstype.encode() if fstype else None, ctypes.c_ulong(flags),
                      data.encode() if data else None), f"mount {source or fstype} on {target}")


def _unshare(libc: Any, names: tuple[str, ...]) -> None:
    import ctypes

    flags = 0
    for name in names:
        flags |= NAMESPACE_FLAGS[name]
    _check(libc.unshare(ctypes.c_int(flags)), "unshare " + ",".join(names))


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _bind_readonly(libc: Any, source_fd: int, target: str) -> None:
    """Bind ``source_fd``'s file or tree at ``target`` read-only, keeping locked flags."""
    _mount(libc, f"/proc/self/fd/{source_fd}", target, None, MS_BIND | MS_REC)
    kept = 0
    for st_bit, ms_bit in ST_TO_MS.items():
        if os.statvfs(target).f_flag & st_bit:
            kept |= ms_bit
    _mount(libc, None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)


def _build_root(libc: Any, cfg: dict[str, Any]) -> list[str]:
    """Mount a fresh root on ``cfg["mountpoint"]`` and pivot into it; return what was done.

    The root is a small tmpfs holding only what the host listed: read-only binds of the
    system libraries, the interpreter and the staged candidate, a few device nodes, a fresh
    ``/proc`` for the new PID namespace and an empty ``/tmp``.  Everything else of the
    host (``/root``, ``/home``, ``/run`` with its sockets, other users' files) is simply
    not there.  Sources are opened before anything is mounted, so a mount cannot hide one.
    """
    import ctypes

    done: list[str] = []
    root = cfg["mountpoint"]
    sources: list[tuple[int, str, bool]] = []
    for source, target in cfg.get("ro_binds", []):
        try:
            fd = os.open(source, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        sources.append((fd, target, os.path.isdir(source)))
    devices: list[tuple[int, str]] = []
    for device in cfg.get("devices", []):
        try:
            devices.append((os.open(device, os.O_PATH | os.O_CLOEXEC), device))
        except OSError:
            continue
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    _mount(libc, "tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for path in ("proc", "tmp", "dev", "etc"):
        os.makedirs(os.path.join(root, path), exist_ok=True)
    # /tmp first, so that a bind below /tmp (tests show host folders there) stays visible
    tmp_size = int(cfg.get("tmp_bytes", 16 << 20))
    _mount(libc, "tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
           f"size={tmp_size},mode=1777")
    done.append("tmp:private")
    for target, link in cfg.get("symlinks", []):
        where = root + link
        os.makedirs(os.path.dirname(where), exist_ok=True)
        if not os.path.lexists(where):
            os.symlink(target, where)
    for fd, target, is_dir in sources:
        where = root + target
        if is_dir:
            os.makedirs(where, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(where), exist_ok=True)
            os.close(os.open(where, os.O_WRONLY | os.O_CREAT, 0o644))
        _bind_readonly(libc, fd, where)
        os.close(fd)
    for fd, device in devices:
        where = root + device
        os.close(os.open(where, os.O_WRONLY | os.O_CREAT, 0o644))
        _mount(libc, f"/proc/self/fd/{fd}", where, None, MS_BIND)
        os.close(fd)
    done.append("root:private")
    try:
        _mount(libc, "proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        done.append("proc:private")
    except SetupError:
        pass
    os.chdir(root)
    number = SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is not None:
        _check(libc.syscall(ctypes.c_long(number), b".", b"."), "pivot_root")
        _check(libc.umount2(b".", ctypes.c_int(MNT_DETACH)), "detach the old root")
        done.append("pivot_root")
    else:
        os.chroot(".")
        done.append("chroot")
    os.chdir("/")
    _mount(libc, None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    done.append("root:read-only")
    os.chdir("/tmp")
    return done


def _drop_capabilities(libc: Any) -> bool:
    """Clear every capability set (a no-op after a switch from root to another id)."""
    import ctypes

    number = SYS_CAPSET.get(os.uname().machine)
    if number is None:
        return False
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    return bool(libc.syscall(ctypes.c_long(number), header, data) == 0)


def _drop_privileges(libc: Any, cfg: dict[str, Any], user_ns: bool) -> list[str]:
    import ctypes

    done: list[str] = []
    uid = int(cfg.get("uid", 65534))
    gid = int(cfg.get("gid", 65534))
    if os.geteuid() == 0 and (not user_ns or cfg.get("map_by_host")):
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        done.append(f"uid:{uid}")
    if _drop_capabilities(libc):
        done.append("capabilities:none")
    if libc.prctl(ctypes.c_int(PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), ctypes.c_ulong(0),
                  ctypes.c_ulong(0), ctypes.c_ulong(0)) == 0:
        done.append("no_new_privs")
    return done


def _apply_rlimits(limits: dict[str, Any]) -> list[str]:
    import resource

    known = {"CPU": resource.RLIMIT_CPU, "AS": resource.RLIMIT_AS,
             "FSIZE": resource.RLIMIT_FSIZE, "NOFILE": resource.RLIMIT_NOFILE,
             "NPROC": resource.RLIMIT_NPROC, "CORE": resource.RLIMIT_CORE}
    done: list[str] = []
    for name, value in limits.items():
        which = known.get(name)
        if which is None:
            continue
        soft, hard = (int(value[0]), int(value[1])) if isinstance(value, list) else (
            int(value), int(value))
        try:
            resource.setrlimit(which, (soft, hard))
            done.append(f"rlimit:{name.lower()}={soft}")
        except (ValueError, OSError):
            continue
    return done


def _seccomp_program(machine: str) -> list[tuple[int, int, int, int]] | None:
    """The classic BPF filter, as (code, jt, jf, k), for ``machine``; None where unknown.

    A foreign architecture (a 32-bit ``int 0x80`` call) or the x32 ABI (numbers with bit
    30 set) kills the process: the numbers would mean other calls, and switching ABI is
    the dodge itself.  Refused calls return EPERM, so the candidate sees an ordinary
    error.  clone3 returns ENOSYS: its flags sit in memory a filter cannot read, and the C
    library then falls back to clone, whose flags (first argument, low word) are checked
    for namespace bits.
    """
    arch = SECCOMP_ARCH.get(machine)
    if arch is None:
        return None
    column, audit = arch
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    kill, allow, fail = 0x80000000, 0x7FFF0000, 0x00050000
    eperm = fail | errno.EPERM
    program = [(load, 0, 0, 4), (jeq, 1, 0, audit), (ret, 0, 0, kill), (load, 0, 0, 0)]
    if machine == "x86_64":
        program += [(jge, 0, 1, 0x40000000), (ret, 0, 0, kill)]
    numbers = [pair[column] for pair in SECCOMP_REFUSED.values()]  # None: not on machine
    refused = [(number, eperm) for number in numbers if number is not None]
    for number, action in [*refused, (SYS_CLONE3[column], fail | errno.ENOSYS)]:
        program += [(jeq, 0, 1, number), (ret, 0, 0, action)]
    return [*program, (jeq, 0, 3, SYS_CLONE[column]), (load, 0, 0, 16),
            (jset, 0, 1, CLONE_NAMESPACES), (ret, 0, 0, eperm), (ret, 0, 0, allow)]


def _install_seccomp(libc: Any) -> str:
    """Install the filter (inherited by every later thread and child); what was done."""
    import ctypes

    program = _seccomp_program(os.uname().machine)
    if program is None:
        raise SetupError(f"seccomp: no filter for {os.uname().machine}")

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8),
                    ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

    code = (Instruction * len(program))(*(Instruction(*i) for i in program))
    fprog = Program(len(program), code)
    _check(libc.prctl(ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER),
                      ctypes.byref(fprog), ctypes.c_ulong(0), ctypes.c_ulong(0)),
           "seccomp filter")
    return f"seccomp:filter ({len(SECCOMP_REFUSED)} calls refused)"


def _redirect_output(log_fd: int | None, cap: int = OUTPUT_CAP) -> None:
    """Point fds 0, 1, 2 away from the channel: stdin empty, prints to the log or nowhere;
    the Python streams (``__stdout__`` and ``__stderr__`` too) forward ``cap`` bytes."""
    global OUTPUT
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    target = log_fd if log_fd is not None else null
    os.dup2(target, 1)
    os.dup2(target, 2)
    if null > 2:
        os.close(null)
    OUTPUT = OutputBudget(cap, 2)
    sys.stdout = sys.__stdout__ = BoundedText(1, OUTPUT, "<stdout>")  # type: ignore[misc,assignment]
    sys.stderr = sys.__stderr__ = BoundedText(2, OUTPUT, "<stderr>")  # type: ignore[misc,assignment]


def setup(worker: Worker, request: dict[str, Any]) -> int | None:
    """Isolate this process as the host asked; return an exit code in the waiting parent.

    The order matters: namespaces first (the user namespace must be created while the
    process is single-threaded), then the id maps, then a fork so the child is PID 1 of
    the new PID namespace, then the new root, limits and the drop to the unprivileged id;
    only then does the candidate get imported (by a later ``load`` request).  Every module
    the set-up needs is imported here, first: after the drop to the unprivileged id the
    interpreter's own files may no longer be readable (a plain child as root, a Python
    under ``/root``).
    """
    import resource  # noqa: F401 - loaded now, used by _apply_rlimits after the drop

    rid = request.get("id")
    cfg = request.get("args") or {}
    channel = worker.channel
    libc = _libc()
    done: list[str] = []
    errors: list[str] = []
    namespaces = _new_namespaces(libc, cfg, errors)
    user_ns = "user" in namespaces
    awaiting_map = user_ns and bool(cfg.get("map_by_host"))
    worker.reply(rid, {"stage": "unshared", "namespaces": list(namespaces), "errors": errors,
                       "awaiting_map": awaiting_map})
    if awaiting_map:
        answer = channel.read()
        if answer is None or answer.get("op") != "mapped":
            return 3
    elif user_ns:
        uid, gid = os.geteuid(), os.getegid()
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1\n")
        _write("/proc/self/gid_map", f"0 {gid} 1\n")
    if "pid" in namespaces:
        code = _become_pid_one(worker, rid)
        if code is not None:
            return code
    done.extend(f"namespace:{n}" for n in namespaces)
    if namespaces and "mount" in namespaces and cfg.get("mountpoint"):
        try:
            done.extend(_build_root(libc, cfg))
            worker.candidate_dir = str(cfg.get("candidate_inside", worker.candidate_dir))
            worker.tools_dir = str(cfg.get("tools_inside", worker.tools_dir))
        except (SetupError, OSError) as exc:
            errors.append(f"root: {exc}")
            worker.reply(rid, {"stage": "failed", "errors": errors})
            return 4
    elif cfg.get("workdir"):
        os.chdir(cfg["workdir"])
    done.extend(_confine(libc, cfg, namespaces, user_ns, errors))
    worker.reply(rid, {"stage": "ready", "isolation": done, "errors": errors,
                       "python": sys.version.split()[0], "uid": os.getuid()})
    return None


def _new_namespaces(libc: Any, cfg: dict[str, Any], errors: list[str]) -> tuple[str, ...]:
    """Unshare every namespace (as root, all but the user namespace if that fails); the
    names of the new ones, none if not asked or nothing worked (``errors`` says why)."""
    if not cfg.get("namespaces"):
        return ()
    attempts: list[tuple[str, ...]] = [("user", "mount", "network", "pid", "ipc", "uts")]
    if os.geteuid() == 0:
        attempts.append(("mount", "network", "pid", "ipc", "uts"))
    for names in attempts:
        try:
            _unshare(libc, names)
            return names
        except SetupError as exc:
            errors.append(str(exc))
    return ()


def _become_pid_one(worker: Worker, rid: Any) -> int | None:
    """Fork, so that the child is PID 1 of the new PID namespace.

    The parent reports the child's pid, lets go of the channel, ignores the signals a
    terminal or the host would send and waits: its exit code is the child's (returned).
    The child goes on (None) once the parent has reported."""
    channel = worker.channel
    release_r, release_w = os.pipe()
    child = os.fork()
    if child:
        os.close(release_r)
        worker.reply(rid, {"stage": "forked", "pid": child})
        os.close(release_w)
        os.close(channel.rfd)
        os.close(channel.wfd)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        while True:
            try:
                _, status = os.waitpid(child, 0)
                break
            except ChildProcessError:
                return 0
        return os.waitstatus_to_exitcode(status)
    os.close(release_w)
    os.read(release_r, 1)
    os.close(release_r)
    return None


def _confine(libc: Any, cfg: dict[str, Any], namespaces: tuple[str, ...],
             user_ns: bool, errors: list[str]) -> list[str]:
    """The last steps before the candidate may be imported: host name, umask, output
    bounded and away from the channel, the drop to the unprivileged id, the limits and,
    last (it needs ``no_new_privs``, and the steps before need the calls it refuses),
    the seccomp filter when asked (the process backend; Docker keeps the engine's)."""
    if "uts" in namespaces:
        libc.sethostname(b"sandbox", len(b"sandbox"))
    os.umask(0o077)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    log_fd = cfg.get("log_fd")
    cap = cfg.get("output_cap")
    _redirect_output(int(log_fd) if isinstance(log_fd, int) else None,
                     cap if type(cap) is int and cap >= 0 else OUTPUT_CAP)
    done = _drop_privileges(libc, cfg, user_ns)
    done.extend(_apply_rlimits(cfg.get("rlimits") or {}))
    if cfg.get("seccomp"):
        try:
            done.append(_install_seccomp(libc))
        except SetupError as exc:
            errors.append(str(exc))
    return done


# --------------------------------------------------------------------------- entry point


def _parse_argv(argv: list[str]) -> tuple[str, str, str]:
    if len(argv) != 4 or (argv[3] != "--stdio" and not argv[3].startswith("--fds=")):
        raise SystemExit("usage: _worker.py CANDIDATE_DIR MODULE (--fds=R,W | --stdio)")
    return argv[1], argv[2], argv[3]


def main(argv: list[str]) -> int:
    """Serve one candidate over the channel named on the command line."""
    candidate_dir, module, how = _parse_argv(argv)
    if how == "--stdio":
        # Docker: the channel is the container's stdin/stdout.  Keep private copies and
        # point the standard descriptors elsewhere before anything else can print.
        rfd, wfd = os.dup(0), os.dup(1)
        _redirect_output(2)
    else:
        rfd, wfd = (int(x) for x in how[len("--fds="):].split(","))
    worker = Worker(Channel(rfd, wfd), candidate_dir, module)
    try:
        first = worker.channel.read()
    except (ValueError, UnicodeDecodeError):
        return 3
    if first is None:
        return 0
    pending: dict[str, Any] | None = None
    if first.get("op") == "setup":
        try:
            code = setup(worker, first)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                return 3
            raise
        if code is not None:
            return code
    elif first.get("op") == "load":
        pending = first
    else:
        worker.fail(first.get("id"), _synthetic("SandboxProtocolError", "ValueError",
                                                "expected setup or load", "protocol"))
        return 3
    try:
        return Judge(worker).serve(pending)
    except (ValueError, UnicodeDecodeError):
        return 3
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            return 3
        raise


if __name__ == "__main__":
    sys.exit(main(sys.argv))
