"""Hostile: connect to a listener on the host's loopback, 127.0.0.1:47123.

Inside a network namespace 127.0.0.1 is the sandbox's own loopback, where nothing
listens; a connection that succeeds reached the host.
"""

import os
import socket


def f(x: int) -> int:
    port = int(os.environ.get("DERIVATIVE_PROBE_PORT", "47123"))
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as conn:
            conn.sendall(b"DERIVATIVE-BREACH net_connect_local\n")
        print("DERIVATIVE-BREACH net_connect_local: connected to port", port, flush=True)
    except OSError:
        pass
    return x + 1
