"""Parsing of the `listen_port` setting."""

from __future__ import annotations

import re

MIN_PORT = 1024
MAX_PORT = 65535

_PORT_TEXT = re.compile(r"[1-9][0-9]*")


def parse_port(text: str) -> int:
    """The port written in `text`: decimal digits, no leading zero, 1024..65535."""
    if _PORT_TEXT.fullmatch(text) is None:
        raise ValueError(f"not a port number: {text!r}")
    port = int(text)
    if port < MIN_PORT:
        raise ValueError(f"port {port} is privileged (below {MIN_PORT})")
    if port > MAX_PORT:
        raise ValueError(f"port {port} is above {MAX_PORT}")
    return port
