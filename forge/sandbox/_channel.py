"""The host side of the framed channel to the sandbox worker.

Everything that arrives from the sandbox is untrusted: the candidate shares an interpreter
with the worker and can write anything into the channel.  So this module

- reads frames with a hard size cap (``MAX_FRAME``) and a deadline, never trusting a length
  it has not checked;
- accepts JSON only (no ``NaN``/``Infinity`` tokens, strict UTF-8), and only the exact
  response shapes of the protocol: an unexpected key, a wrong ``id``, an unknown tag or a
  value of the wrong type is a ``ProtocolError`` and the call is a failure, never a pass;
- decodes values into host objects by hand (tagged forms, see ``_worker.py``), with a depth
  limit, so that no candidate-controlled object is ever constructed on the host;
- hashes every frame sent and received into the transcript digest of the run receipt.

The frame format is shared with the worker: ``<decimal length>\\n<JSON>``.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import re
import select
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from derivative._errors import InternalError
from derivative._values import DictValue, EnumValue, TupleValue

MAX_FRAME = 1 << 20
"""Largest frame body accepted or sent (1 MiB), the same figure as the worker's."""

MAX_HEADER = 9
MAX_DEPTH = 64
MAX_TEXT = 4000
PHASES = frozenset({"lookup", "decode", "call", "encode", "load", "protocol"})

MAX_SCHEDULE_TEXT = 4000
"""Longest schedule description accepted in an explore answer (the worker cuts at 2000)."""
MAX_TRACE_TEXT = 8192
"""Longest interleaving trace accepted (the worker cuts at 4000 characters)."""
MAX_TRACE_LINES = 100
"""Most lines of a trace accepted (the worker sends about 80 at most)."""

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_FRAC = re.compile(r"-?[0-9]{1,4000}/[0-9]{1,4000}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,199}")
_MODULE = re.compile(r"(?=.{1,200}$)[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
"""A class's module as the worker reports it: an ASCII dotted name (else it sends ``?``)."""


class ChannelError(InternalError):
    """The channel could not deliver a response (base of the cases below).

    None of these is for the user to see: what the candidate does to the channel is
    evidence about the candidate.  ``Sandbox`` turns each one raised during a call into
    that call's result (``timeout``, ``protocol_error``: a tainted run, ``crashed``) and
    each one raised while a sandbox starts into ``SandboxUnavailable``, so the run ends
    in a verdict.  One that escapes anyway is a bug in derivative (exit 70).
    """


class ProtocolError(ChannelError):
    """A frame that breaks the protocol: oversize, not JSON, wrong shape or wrong id."""


class ChannelTimeout(ChannelError):
    """No complete response before the deadline."""


class ChannelClosed(ChannelError):
    """The worker's end closed (it exited or was killed)."""


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Opaque:
    """A result of a type the protocol does not carry (an object, a subclass, a set)."""

    type_name: str
    repr: str


@dataclass(frozen=True)
class InstanceRef:
    """A handle to an instance living in one particular sandbox start (its generation)."""

    handle: int
    generation: int
    system: str


@dataclass(frozen=True)
class RaisedError:
    """An exception reported by the worker: its classes along the MRO, message, phase.

    For each class the worker also reports its defining module and whether it *is* the
    built-in class of that name, decided there by identity with the built-ins it pinned
    before the candidate was imported: a name alone proves nothing (a candidate can define
    ``class ValueError(Exception)``), and neither does a module (it can set
    ``__module__ = "builtins"``)."""

    classes: tuple[str, ...]
    """The exception's class names along its MRO (the wire's ``mro``), most derived first."""
    message: str
    phase: str
    modules: tuple[str, ...] = ()
    """Parallel to ``classes``: each class's ``__module__`` (``"?"`` when unknown)."""
    builtin: tuple[bool, ...] = ()
    """Parallel to ``classes``: whether that class is the built-in class of that name."""

    @property
    def name(self) -> str:
        return self.classes[0]

    def derives_from_builtin(self, name: str) -> bool:
        """Whether the exception is the built-in class ``name`` or a subclass of it (by
        the worker's identity check; a look-alike of that name is not)."""
        return any(c == name and b for c, b in zip(self.classes, self.builtin, strict=False))


@dataclass(frozen=True)
class SetupRef:
    """In an explore request: "the result of set-up call ``index``" (``{"$ref": i}``)."""

    index: int


def encode_value(value: object) -> Any:
    """A host value (derivative._values, or float) as the JSON the worker decodes.

    Reals cross exactly as ``$frac`` and the worker hands the candidate a ``float``; lists
    (tuples on the host, by the value model's convention) arrive as Python lists.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"$float": "nan"}
        if math.isinf(value):
            return {"$float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, Fraction):
        return {"$frac": f"{value.numerator}/{value.denominator}"}
    if isinstance(value, datetime.datetime):
        raise TypeError("a datetime is not a date value")
    if isinstance(value, datetime.date):
        return {"$date": value.isoformat()}
    if isinstance(value, EnumValue):
        return {"$enum": [value.enum, value.member]}
    if isinstance(value, (tuple, list)):
        return [encode_value(v) for v in value]
    if isinstance(value, TupleValue):
        return {"$tuple": [encode_value(v) for v in value.items]}
    if isinstance(value, DictValue):
        return {"$dict": [[encode_value(k), encode_value(v)] for k, v in value.entries]}
    raise TypeError(f"cannot send a {type(value).__name__} to the sandbox")


def _text(value: object, what: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise ProtocolError(f"{what} is not a string")
    return value if len(value) <= limit else value[: limit - 3] + "..."


def decode_value(value: object, depth: int = 0) -> object:
    """A result value from the worker, validated; anything unexpected is a ProtocolError."""
    if depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ProtocolError("non-finite float outside $float")
        return value
    if isinstance(value, list):
        return [decode_value(v, depth + 1) for v in value]
    if not isinstance(value, dict) or len(value) != 1:
        raise ProtocolError("a JSON object must be one tagged value")
    ((tag, payload),) = value.items()
    if tag == "$date":
        if not isinstance(payload, str) or not _DATE.fullmatch(payload):
            raise ProtocolError("bad $date")
        try:
            return datetime.date.fromisoformat(payload)
        except ValueError as exc:
            raise ProtocolError(f"bad $date: {exc}") from None
    if tag == "$frac":
        if not isinstance(payload, str) or not _FRAC.fullmatch(payload):
            raise ProtocolError("bad $frac")
        num, den = payload.split("/")
        if int(den) == 0:
            raise ProtocolError("bad $frac: zero denominator")
        return Fraction(int(num), int(den))
    if tag == "$float":
        if payload not in ("nan", "inf", "-inf"):
            raise ProtocolError("bad $float")
        return float(payload)
    if tag == "$enum":
        if (
            not isinstance(payload, list)
            or len(payload) != 2
            or not all(isinstance(p, str) and _NAME.fullmatch(p) for p in payload)
        ):
            raise ProtocolError("bad $enum")
        return EnumValue(payload[0], payload[1])
    if tag == "$tuple":
        if not isinstance(payload, list):
            raise ProtocolError("bad $tuple")
        return tuple(decode_value(v, depth + 1) for v in payload)
    if tag == "$dict":
        return _decode_dict(payload, depth)
    if tag == "$object":
        if not isinstance(payload, dict) or set(payload) != {"type", "repr"}:
            raise ProtocolError("bad $object")
        return Opaque(_text(payload["type"], "$object type", 200), _text(payload["repr"], "repr"))
    raise ProtocolError(f"unknown tag {tag[:40]!r}")


def _decode_dict(payload: object, depth: int) -> dict[object, object]:
    """A ``$dict`` result: ``[[key, value], ...]`` with hashable keys, as a Python dict."""
    if not isinstance(payload, list):
        raise ProtocolError("bad $dict")
    out: dict[object, object] = {}
    for pair in payload:
        if not isinstance(pair, list) or len(pair) != 2:
            raise ProtocolError("bad $dict entry")
        key = decode_value(pair[0], depth + 1)
        try:
            hash(key)
        except TypeError:
            raise ProtocolError("a $dict key that is not hashable") from None
        out[key] = decode_value(pair[1], depth + 1)
    return out


_EXC_KEYS = frozenset({"mro", "modules", "builtin", "message", "phase"})


def decode_exception(payload: object) -> RaisedError:
    """The ``exc`` member of a response, validated.

    ``modules`` and ``builtin`` run parallel to ``mro``: a module is a dotted name or
    ``"?"``, a flag is a boolean, and a class flagged built-in must come from ``builtins``
    (the worker never says otherwise; a frame that does was not written by it)."""
    if not isinstance(payload, dict) or set(payload) != _EXC_KEYS:
        raise ProtocolError("bad exc object")
    mro = payload["mro"]
    if (
        not isinstance(mro, list)
        or not 1 <= len(mro) <= 64
        or not all(isinstance(m, str) and 0 < len(m) <= 200 for m in mro)
    ):
        raise ProtocolError("bad exc.mro")
    modules = payload["modules"]
    if (
        not isinstance(modules, list)
        or len(modules) != len(mro)
        or not all(isinstance(m, str) and (m == "?" or _MODULE.fullmatch(m)) for m in modules)
    ):
        raise ProtocolError("bad exc.modules")
    builtin = payload["builtin"]
    if (
        not isinstance(builtin, list)
        or len(builtin) != len(mro)
        or not all(type(b) is bool for b in builtin)
        or any(b and m != "builtins" for b, m in zip(builtin, modules, strict=True))
    ):
        raise ProtocolError("bad exc.builtin")
    phase = payload["phase"]
    if phase not in PHASES:
        raise ProtocolError("bad exc.phase")
    return RaisedError(tuple(mro), _text(payload["message"], "exc.message"), str(phase),
                       tuple(modules), tuple(builtin))


@dataclass(frozen=True)
class GuardRefusal:
    """The runtime guard ended the runner: the audited ``event`` and ``where`` it came
    from.  Only the judge process writes these (it refuses a runner answer that has one)."""

    event: str
    where: str


def decode_guard(payload: object) -> GuardRefusal:
    """The ``guard`` member of a response, validated."""
    if not isinstance(payload, dict) or set(payload) != {"event", "where"}:
        raise ProtocolError("bad guard object")
    return GuardRefusal(_text(payload["event"], "guard.event", 200),
                        _text(payload["where"], "guard.where", 600))


@dataclass(frozen=True)
class Response:
    """One validated response frame."""

    id: int
    ok: bool
    value: object = None
    raw_value: object = None
    exc: RaisedError | None = None
    guard: GuardRefusal | None = None


def _reject_constant(name: str) -> float:
    raise ProtocolError(f"JSON constant {name} is not allowed")


def parse_response(body: bytes, expected_id: int, *, decode: bool = True) -> Response:
    """Validate one frame body as the response to request ``expected_id``.

    ``decode=False`` keeps a success value as raw JSON (set-up and load responses carry
    plain objects, which the value decoder rightly refuses).
    """
    try:
        message = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except ProtocolError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"not JSON: {str(exc)[:200]}") from None
    if not isinstance(message, dict):
        raise ProtocolError("a response must be a JSON object")
    rid = message.get("id")
    if rid is None and message.get("ok") is False and (
            "guard" in message or "forged" in message):
        rid = expected_id  # the judge's word about the pending request (it reads none)
    elif type(rid) is not int or rid != expected_id:
        raise ProtocolError(f"response id {rid!r:.40} does not answer request {expected_id}")
    ok = message.get("ok")
    if ok is True:
        if set(message) != {"id", "ok", "value"}:
            raise ProtocolError("bad keys in a success response")
        raw = message["value"]
        return Response(rid, True, decode_value(raw) if decode else raw, raw)
    if ok is False:
        if set(message) == {"id", "ok", "guard"} and message["id"] is None:
            return Response(rid, False, guard=decode_guard(message["guard"]))
        if set(message) == {"id", "ok", "forged"} and message["id"] is None:
            # the judge saw the runner's pipe carry something its worker did not write
            raise ProtocolError(_text(message["forged"], "forged"))
        if set(message) != {"id", "ok", "exc"}:
            raise ProtocolError("bad keys in a failure response")
        return Response(rid, False, exc=decode_exception(message["exc"]))
    raise ProtocolError("response without a boolean ok")


# --------------------------------------------------------------------------- transports


class Transport(Protocol):
    """Raw bytes to and from one running worker."""

    def write_all(self, data: bytes, deadline: float) -> None:
        """Send everything before ``deadline`` (``time.monotonic()``), else ChannelTimeout."""

    def read_some(self, limit: int, deadline: float) -> bytes:
        """At least one byte, at most ``limit``; b"" at end of stream; ChannelTimeout late."""

    def close(self) -> None:
        """Release the host's ends."""


def wait_readable(fd: int, deadline: float) -> None:
    """Block until ``fd`` is readable or the deadline passes (then ChannelTimeout).

    A deadline already past still polls once, so ``deadline=time.monotonic()`` asks
    "is anything there right now?".
    """
    while True:
        remaining = max(deadline - time.monotonic(), 0.0)
        ready, _, _ = select.select([fd], [], [], remaining)
        if ready:
            return
        if time.monotonic() >= deadline:
            raise ChannelTimeout("no response before the deadline")


def wait_writable(fd: int, deadline: float) -> None:
    """Block until ``fd`` is writable or the deadline passes (then ChannelTimeout)."""
    while True:
        remaining = max(deadline - time.monotonic(), 0.0)
        _, ready, _ = select.select([], [fd], [], remaining)
        if ready:
            return
        if time.monotonic() >= deadline:
            raise ChannelTimeout("the worker did not read its input before the deadline")


# --------------------------------------------------------------------------- framing


def frame(message: Mapping[str, Any]) -> bytes:
    """One request as a frame."""
    body = json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    data = body.encode("ascii")
    if len(data) > MAX_FRAME:
        raise ValueError(f"request of {len(data)} bytes exceeds the frame cap")
    return str(len(data)).encode("ascii") + b"\n" + data


class Transcript:
    """The SHA-256 of every frame exchanged, in order, with its direction."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self.frames = 0

    def add(self, direction: bytes, data: bytes) -> None:
        self._hash.update(direction + len(data).to_bytes(8, "big") + data)
        self.frames += 1

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


class FrameChannel:
    """Requests out, validated responses in, over one transport; every byte hashed."""

    def __init__(self, transport: Transport, transcript: Transcript) -> None:
        self.transport = transport
        self.transcript = transcript
        self._buffer = bytearray()

    def send(self, message: Mapping[str, Any], deadline: float) -> None:
        data = frame(message)
        self.transcript.add(b">", data)
        self.transport.write_all(data, deadline)

    def _fill(self, deadline: float, need: int) -> None:
        while len(self._buffer) < need:
            chunk = self.transport.read_some(max(need - len(self._buffer), 4096), deadline)
            if not chunk:
                raise ChannelClosed("the worker closed the channel")
            self._buffer.extend(chunk)

    def receive_body(self, deadline: float) -> bytes:
        """The next frame body, size-checked before it is read."""
        while b"\n" not in self._buffer[:MAX_HEADER]:
            if len(self._buffer) >= MAX_HEADER:
                self._reject("frame header too long or missing")
            self._fill(deadline, len(self._buffer) + 1)
        cut = self._buffer.index(b"\n")
        digits = bytes(self._buffer[:cut])
        if not digits.isdigit():
            self._reject("frame header is not a length")
        size = int(digits)
        if size > MAX_FRAME:
            self._reject(f"frame of {size} bytes exceeds the {MAX_FRAME}-byte cap")
        self._fill(deadline, cut + 1 + size)
        whole = bytes(self._buffer[: cut + 1 + size])
        del self._buffer[: cut + 1 + size]
        self.transcript.add(b"<", whole)
        return whole[cut + 1 :]

    def _reject(self, reason: str) -> None:
        self.transcript.add(b"!", bytes(self._buffer[:MAX_HEADER]))
        raise ProtocolError(reason)

    def request(
        self, message: Mapping[str, Any], deadline: float, *, decode: bool = True
    ) -> Response:
        """Send one request and return its validated response."""
        self.send(message, deadline)
        return parse_response(self.receive_body(deadline), int(message["id"]), decode=decode)

    def receive(self, expected_id: int, deadline: float, *, decode: bool = False) -> Response:
        """A further response to ``expected_id`` (set-up sends several)."""
        return parse_response(self.receive_body(deadline), expected_id, decode=decode)

    def unexpected_input(self) -> bool:
        """Whether bytes arrived that no request asked for (a sign of forged frames).

        Checked before each request: in a strictly sequential protocol nothing may be
        waiting then, so anything that is was written by someone other than the worker
        answering a request, or by the worker after a forged answer was taken for its own.
        """
        if self._buffer:
            return True
        try:
            chunk = self.transport.read_some(4096, time.monotonic())
        except ChannelTimeout:
            return False
        if not chunk:
            return False
        self._buffer.extend(chunk)
        return True


def stage_value(response: Response, stage: str) -> Mapping[str, Any]:
    """The value of a set-up response, checked to be the expected stage."""
    if not response.ok or not isinstance(response.raw_value, dict):
        detail = response.exc.message if response.exc else "no value"
        raise ProtocolError(f"set-up failed: {detail}")
    value: dict[str, Any] = response.raw_value
    if value.get("stage") != stage:
        raise ProtocolError(f"expected set-up stage {stage!r}, got {value.get('stage')!r:.60}")
    return value


def string_list(value: object) -> tuple[str, ...]:
    """A list of short strings from a set-up frame, validated."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProtocolError("expected a list of strings")
    return tuple(v[:300] for v in value[:100])


def encode_args(args: Sequence[object]) -> list[Any]:
    """Call arguments as JSON."""
    return [encode_value(a) for a in args]


def encode_explore_args(args: Sequence[object], refs: int) -> list[Any]:
    """Arguments of an explored call as JSON: a top-level ``SetupRef`` becomes
    ``{"$ref": i}`` and must name one of the first ``refs`` set-up calls (ValueError)."""
    out: list[Any] = []
    for a in args:
        if isinstance(a, SetupRef):
            if type(a.index) is not int or not 0 <= a.index < refs:
                raise ValueError(f"set-up result {a.index!r} is not one of the {refs} before it")
            out.append({"$ref": a.index})
        else:
            out.append(encode_value(a))
    return out


# --------------------------------------------------------------------------- exploration


@dataclass(frozen=True)
class WireOutcome:
    """One explored call's outcome: ``ok`` with ``value``, or the exception ``exc``."""

    ok: bool
    value: object = None
    exc: RaisedError | None = None


@dataclass(frozen=True)
class ExploredRun:
    """One schedule explored in the sandbox, as validated on the host."""

    schedule: str
    setup: tuple[WireOutcome, ...]
    outcomes: tuple[WireOutcome, ...]
    trace: str
    deadlock: bool


@dataclass(frozen=True)
class ExploreBatch:
    """The runs of one explore answer and whether the worker has more."""

    runs: tuple[ExploredRun, ...]
    more: bool


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _display_text(value: object, what: str, chars: int, lines: int | None = None) -> str:
    """A text for people (a schedule, a trace): refused when longer than the caps, and
    control characters (terminal escapes from a candidate's source) made visible."""
    if not isinstance(value, str):
        raise ProtocolError(f"{what} is not a string")
    if len(value) > chars:
        raise ProtocolError(f"{what} of {len(value)} characters exceeds the cap of {chars}")
    if lines is not None and value.count("\n") >= lines:
        raise ProtocolError(f"{what} has more than {lines} lines")
    return _CONTROL.sub("\N{REPLACEMENT CHARACTER}", value)


def decode_outcome(payload: object) -> WireOutcome:
    """``{"ok": true, "value": V}`` or ``{"ok": false, "exc": {...}}``, validated."""
    if not isinstance(payload, dict):
        raise ProtocolError("an outcome must be an object")
    if payload.get("ok") is True and set(payload) == {"ok", "value"}:
        return WireOutcome(True, decode_value(payload["value"]))
    if payload.get("ok") is False and set(payload) == {"ok", "exc"}:
        return WireOutcome(False, exc=decode_exception(payload["exc"]))
    raise ProtocolError("bad outcome")


_RUN_KEYS = frozenset({"schedule", "setup", "outcomes", "trace", "deadlock"})


def parse_explore_batch(raw: object, *, setup: int, calls: int, batch: int) -> ExploreBatch:
    """The value of an explore answer, validated against the request it answers.

    ``setup`` and ``calls`` are the request's numbers of set-up and concurrent calls:
    each run carries one outcome per call, and one per set-up call unless the
    constructor failed (then exactly that one failure).  At most ``batch`` runs; an
    answer that promises more must bring at least one.
    """
    if not isinstance(raw, dict) or set(raw) != {"runs", "more"}:
        raise ProtocolError("bad keys in an explore answer")
    more = raw["more"]
    runs = raw["runs"]
    if type(more) is not bool:
        raise ProtocolError("explore answer: more is not a boolean")
    if not isinstance(runs, list) or len(runs) > batch:
        raise ProtocolError(f"explore answer: runs is not a list of at most {batch}")
    if more and not runs:
        raise ProtocolError("explore answer promises more but brings no run")
    out: list[ExploredRun] = []
    for entry in runs:
        if not isinstance(entry, dict) or set(entry) != _RUN_KEYS:
            raise ProtocolError("bad keys in an explored run")
        deadlock = entry["deadlock"]
        if type(deadlock) is not bool:
            raise ProtocolError("explored run: deadlock is not a boolean")
        set_up = entry["setup"]
        outcomes = entry["outcomes"]
        if not isinstance(set_up, list) or not isinstance(outcomes, list):
            raise ProtocolError("explored run: setup and outcomes must be lists")
        if len(outcomes) != calls:
            raise ProtocolError(f"explored run: {len(outcomes)} outcomes for {calls} calls")
        setup_out = tuple(decode_outcome(o) for o in set_up)
        if len(setup_out) != setup and not (len(setup_out) == 1 and not setup_out[0].ok):
            raise ProtocolError(f"explored run: {len(setup_out)} set-up outcomes for {setup}")
        out.append(ExploredRun(
            schedule=_display_text(entry["schedule"], "schedule", MAX_SCHEDULE_TEXT),
            setup=setup_out,
            outcomes=tuple(decode_outcome(o) for o in outcomes),
            trace=_display_text(entry["trace"], "trace", MAX_TRACE_TEXT, MAX_TRACE_LINES),
            deadlock=deadlock,
        ))
    return ExploreBatch(tuple(out), more)
