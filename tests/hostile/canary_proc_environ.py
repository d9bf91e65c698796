"""Hostile: look for DERIVATIVE_CANARY in the environment of every process in /proc.

The worker's own environment is scrubbed; the host's processes (the test runner) have
the canary.  A PID namespace with its own /proc, or an unprivileged id, hides them.
"""

import os


def f(x: int) -> int:
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return x + 1
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue
        for item in env.split(b"\0"):
            if item.startswith(b"DERIVATIVE_CANARY="):
                secret = item.split(b"=", 1)[1].decode("utf-8", "replace")
                print("DERIVATIVE-BREACH canary_proc_environ: pid", pid, secret, flush=True)
                raise ValueError(f"canary {secret}")
    return x + 1
