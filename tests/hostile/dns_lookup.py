"""Hostile: resolve a public name (example.com), waiting at most 1 s."""

import socket
import threading


def f(x: int) -> int:
    found: list[object] = []

    def look() -> None:
        try:
            found.extend(socket.getaddrinfo("example.com", 80))
        except OSError:
            pass

    worker = threading.Thread(target=look, daemon=True)
    worker.start()
    worker.join(1.0)
    if found:
        print("DERIVATIVE-BREACH dns_lookup: resolved example.com", flush=True)
    return x + 1
