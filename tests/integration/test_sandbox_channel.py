"""The host side of the channel, without a sandbox: framing, validation and the transcript.

Every frame from the sandbox is untrusted.  These tests feed the host hand-made bytes, as a
hostile candidate could write them, and check that each malformed one is refused (a
``ProtocolError``) rather than taken for an answer, that the size cap is checked before a
body is read, and that the transcript digest is exactly the documented function of the
frames exchanged.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import time
from fractions import Fraction

import pytest

from derivative._values import EnumValue
from derivative.forge.sandbox._channel import (
    MAX_FRAME,
    ChannelClosed,
    ChannelTimeout,
    FrameChannel,
    Opaque,
    ProtocolError,
    Transcript,
    decode_value,
    encode_value,
    frame,
    parse_response,
)


class FakeTransport:
    """Bytes from a script; records what was written and how much was read."""

    def __init__(self, incoming: bytes, chunk: int = 7) -> None:
        self.incoming = bytearray(incoming)
        self.written = bytearray()
        self.chunk = chunk
        self.read_total = 0

    def write_all(self, data: bytes, deadline: float) -> None:
        self.written.extend(data)

    def read_some(self, limit: int, deadline: float) -> bytes:
        if not self.incoming:
            if time.monotonic() >= deadline:
                raise ChannelTimeout("nothing")
            return b""
        n = min(limit, self.chunk, len(self.incoming))
        out = bytes(self.incoming[:n])
        del self.incoming[:n]
        self.read_total += n
        return out

    def close(self) -> None:
        pass


def framed(obj: object) -> bytes:
    body = json.dumps(obj).encode()
    return str(len(body)).encode() + b"\n" + body


def channel_for(incoming: bytes) -> tuple[FrameChannel, FakeTransport]:
    transport = FakeTransport(incoming)
    return FrameChannel(transport, Transcript()), transport


def far() -> float:
    return time.monotonic() + 5


# --------------------------------------------------------------------------- framing


def test_a_well_formed_response_is_accepted() -> None:
    channel, transport = channel_for(framed({"id": 1, "ok": True, "value": 42}))
    response = channel.request({"id": 1, "op": "call", "target": "f", "args": []}, far())
    assert response.ok and response.value == 42
    assert transport.written.startswith(b"51\n") or transport.written.split(b"\n")[0].isdigit()


def test_an_oversize_length_is_refused_before_the_body_is_read() -> None:
    huge = str(MAX_FRAME + 1).encode() + b"\n" + b"x" * 100
    channel, transport = channel_for(huge)
    with pytest.raises(ProtocolError, match="cap"):
        channel.receive_body(far())
    assert transport.read_total < 64


@pytest.mark.parametrize(
    "data",
    [b"123456789012\n{}", b"abc\n{}", b"-5\n{}", b"12 \n{}", b"\n{}", b"0x10\n{}"],
)
def test_bad_headers_are_refused(data: bytes) -> None:
    channel, _ = channel_for(data)
    with pytest.raises(ProtocolError):
        channel.receive_body(far())


def test_a_truncated_frame_is_a_closed_channel_not_an_answer() -> None:
    channel, _ = channel_for(b"50\n{\"id\": 1")
    with pytest.raises(ChannelClosed):
        channel.receive_body(far())


def _exc_frame(**changes: object) -> bytes:
    """A failure response whose ``exc`` is a look-alike ``E(Exception)``, with changes."""
    exc: dict[str, object] = {"mro": ["E", "Exception"], "modules": ["cand", "builtins"],
                              "builtin": [False, True], "message": "", "phase": "call"}
    exc.update(changes)
    return json.dumps({"id": 1, "ok": False, "exc": exc}).encode("ascii")


def test_an_exception_carries_where_each_class_comes_from() -> None:
    response = parse_response(_exc_frame(modules=["?", "builtins"]), 1)
    exc = response.exc
    assert exc is not None and exc.classes == ("E", "Exception")
    assert exc.modules == ("?", "builtins") and exc.builtin == (False, True)
    assert exc.derives_from_builtin("Exception") and not exc.derives_from_builtin("E")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"not json", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b'{"id": 1, "ok": true, "value": NaN}', "NaN"),
        (b'{"id": 1, "ok": true, "value": Infinity}', "Infinity"),
        (b"[1, 2]", "object"),
        (b'{"id": 2, "ok": true, "value": 1}', "does not answer"),
        (b'{"id": "1", "ok": true, "value": 1}', "does not answer"),
        (b'{"id": true, "ok": true, "value": 1}', "does not answer"),
        (b'{"id": 1, "ok": 1, "value": 1}', "boolean ok"),
        (b'{"id": 1, "ok": true, "value": 1, "extra": 2}', "keys"),
        (b'{"id": 1, "ok": true}', "keys"),
        (b'{"id": 1, "ok": false, "value": 1}', "keys"),
        (_exc_frame(mro=[], modules=[], builtin=[]), "mro"),
        (_exc_frame(message=3), "mess"),
        (_exc_frame(phase="x"), "phase"),
        (b'{"id": 1, "ok": false, "exc": {"mro": ["E"], "message": "", "phase": "call"}}',
         "exc object"),  # the format before modules and builtin: refused, never guessed
        (_exc_frame(extra=1), "exc object"),
        (_exc_frame(modules=["cand"]), "modules"),
        (_exc_frame(modules=["a..b", "builtins"]), "modules"),
        (_exc_frame(modules=["cand\u001b[31m", "builtins"]), "modules"),
        (_exc_frame(modules=[3, "builtins"]), "modules"),
        (_exc_frame(builtin=[False]), "builtin"),
        (_exc_frame(builtin=[0, True]), "builtin"),
        (_exc_frame(builtin=[True, True]), "builtin"),  # a built-in from module "cand"
        (_exc_frame(modules=["?", "builtins"], builtin=[True, True]), "builtin"),
        (b'{"id": 1, "ok": true, "value": {"a": 1}}', "unknown tag"),
        (b'{"id": 1, "ok": true, "value": {"$eval": "1"}}', "unknown tag"),
        (b'{"id": 1, "ok": true, "value": {"$date": "2024-02-30"}}', "date"),
        (b'{"id": 1, "ok": true, "value": {"$date": "tomorrow"}}', "date"),
        (b'{"id": 1, "ok": true, "value": {"$frac": "1/0"}}', "zero"),
        (b'{"id": 1, "ok": true, "value": {"$frac": "1.5/2"}}', "frac"),
        (b'{"id": 1, "ok": true, "value": {"$enum": ["A"]}}', "enum"),
        (b'{"id": 1, "ok": true, "value": {"$enum": ["A", "b c"]}}', "enum"),
        (b'{"id": 1, "ok": true, "value": {"$float": "1e999"}}', "float"),
        (b'{"id": 1, "ok": true, "value": {"$object": {"type": "x"}}}', "object"),
        (b'{"id": 1, "ok": true, "value": ' + b"[" * 5000 + b"]" * 5000 + b"}", "JSON|deep"),
        (b'{"id": 1, "ok": true, "value": ' + b"9" * 5000 + b"}", "JSON"),
    ],
)
def test_malformed_responses_are_protocol_errors(body: bytes, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        parse_response(body, 1)


def test_nesting_deeper_than_the_limit_is_refused() -> None:
    value: object = 1
    for _ in range(100):
        value = [value]
    with pytest.raises(ProtocolError, match="deep"):
        decode_value(value)


def test_unrequested_bytes_are_noticed() -> None:
    channel, _ = channel_for(framed({"id": 1, "ok": True, "value": 1}))
    assert channel.unexpected_input()
    quiet, _ = channel_for(b"")
    assert not quiet.unexpected_input()


# --------------------------------------------------------------------------- values


def test_values_round_trip_through_the_tagged_forms() -> None:
    sent = encode_value(
        (1, True, None, "s", Fraction(-7, 3), 0.5, datetime.date(2024, 2, 29),
         EnumValue("E", "a"), (1, 2), float("inf"))
    )
    assert sent == [1, True, None, "s", {"$frac": "-7/3"}, 0.5, {"$date": "2024-02-29"},
                    {"$enum": ["E", "a"]}, [1, 2], {"$float": "inf"}]
    json.dumps(sent, allow_nan=False)  # JSON-safe
    back = decode_value(
        [{"$frac": "-7/3"}, {"$date": "2024-02-29"}, {"$enum": ["E", "a"]},
         {"$tuple": [1, [2]]}, {"$object": {"type": "dict", "repr": "{}"}}, {"$float": "-inf"}]
    )
    assert back == [Fraction(-7, 3), datetime.date(2024, 2, 29), EnumValue("E", "a"),
                    (1, [2]), Opaque("dict", "{}"), float("-inf")]


def test_values_the_protocol_cannot_carry_are_refused_on_the_host() -> None:
    with pytest.raises(TypeError):
        encode_value(datetime.datetime(2024, 1, 1))
    with pytest.raises(TypeError):
        encode_value({"a": 1})


def test_requests_larger_than_the_cap_are_never_sent() -> None:
    with pytest.raises(ValueError, match="cap"):
        frame({"id": 1, "op": "call", "target": "f", "args": ["x" * MAX_FRAME]})


# --------------------------------------------------------------------------- transcript


def test_the_transcript_digest_is_the_documented_function_of_the_frames() -> None:
    reply = framed({"id": 1, "ok": True, "value": "done"})
    channel, transport = channel_for(reply)
    request = {"id": 1, "op": "call", "target": "f", "args": [1]}
    channel.request(request, far())
    expected = hashlib.sha256()
    for direction, data in ((b">", bytes(transport.written)), (b"<", reply)):
        expected.update(direction + len(data).to_bytes(8, "big") + data)
    assert channel.transcript.hexdigest() == expected.hexdigest()
    assert channel.transcript.frames == 2
    other, _ = channel_for(framed({"id": 1, "ok": True, "value": "else"}))
    other.request(request, far())
    assert other.transcript.hexdigest() != channel.transcript.hexdigest()
