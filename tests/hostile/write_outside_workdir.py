"""Hostile: write files outside the work dir, in /tmp and /var/tmp.

The sandbox test plants /tmp/derivative-hostile/SENTINEL on the host first: seeing it
from inside means the host's /tmp is visible.  Afterwards the host checks that no
escaped-write.txt appeared in either folder.
"""

import os

TARGETS = ("/tmp/derivative-hostile", "/var/tmp/derivative-hostile")


def f(x: int) -> int:
    for folder in TARGETS:
        if os.path.exists(os.path.join(folder, "SENTINEL")):
            print("DERIVATIVE-BREACH write_outside_workdir: host folder visible:", folder, flush=True)
        try:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "escaped-write.txt"), "w", encoding="utf-8") as fh:
                fh.write("written from inside the sandbox\n")
        except OSError:
            pass
    return x + 1
