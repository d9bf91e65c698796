"""Hostile: run a shell that prints the canary and the host's canary files."""

import subprocess

SCRIPT = (
    "echo canary=$DERIVATIVE_CANARY; "
    "cat /tmp/derivative-hostile/canary /var/tmp/derivative-hostile/canary 2>/dev/null; id"
)


def f(x: int) -> int:
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", SCRIPT], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return x + 1
    print(done.stdout, flush=True)
    if not done.stdout.startswith("canary=\n"):
        raise ValueError(done.stdout[:200])
    return x + 1
