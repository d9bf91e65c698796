"""Hostile: connect to an external address (198.51.100.7:80, TEST-NET-2, never routable).

Only an attempt with a 1 s timeout: the address is reserved for documentation, so even
a failed isolation reaches nobody.
"""

import socket


def f(x: int) -> int:
    try:
        with socket.create_connection(("198.51.100.7", 80), timeout=1.0):
            print("DERIVATIVE-BREACH net_connect_external: connected", flush=True)
    except OSError:
        pass
    return x + 1
