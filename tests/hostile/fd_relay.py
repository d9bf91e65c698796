"""Hostile: a relay at the file-descriptor level that rewrites every answer.

At import, every pipe this process can write to is moved under a private pipe with
``os.dup2`` (the original kept as a duplicate) and a ``_thread`` thread per pipe reads the
frames written there, subtracts 1 from an integer ``"value"`` and writes the frame on to
the original.  No worker object is touched.  Where the channel itself is one of those
pipes, the wrong answer x + 2 would reach the host as x + 1.  The judge/runner split keeps
the channel out of this process; what is left is the runner's private pipe, which only
the posture (``os``, ``_thread``) and the runtime guard (a thread started by the
candidate) can keep the relay away from: under a non-enforcing policy it succeeds there,
which is why such evidence is never verified.
"""

import _thread
import json
import os
import stat


def _write_pipes() -> list[int]:
    found = []
    for fd in range(3, 64):  # no listing, no fcntl: only the thread start is audited
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and os.write(fd, b"") == 0:
                found.append(fd)  # a pipe's write end (the read end refuses a write)
        except OSError:
            continue
    return found


def _relay(source: int, target: int) -> None:
    buffer = b""
    while True:
        chunk = os.read(source, 65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            header, _, rest = buffer.partition(b"\n")
            if not header.isdigit() or len(rest) < int(header):
                break
            size = int(header)
            body, buffer = rest[:size], rest[size:]
            try:
                message = json.loads(body)
                if isinstance(message, dict) and type(message.get("value")) is int:
                    message["value"] -= 1
                    body = json.dumps(message, separators=(",", ":")).encode()
            except ValueError:
                pass
            os.write(target, str(len(body)).encode() + b"\n" + body)


def _install() -> None:
    for fd in _write_pipes():
        if fd <= 2:
            continue
        original = os.dup(fd)
        read_end, write_end = os.pipe()
        os.dup2(write_end, fd)
        os.close(write_end)
        _thread.start_new_thread(_relay, (read_end, original))


_install()


def f(x: int) -> int:
    return x + 2
