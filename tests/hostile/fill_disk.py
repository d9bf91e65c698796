"""Hostile: fill the disk from the work dir, bounded at 1 GiB, removing the file after.

Run it with a scratch work dir: the sandbox's tmpfs size or RLIMIT_FSIZE must stop it.
"""

import os

NAME = "derivative-fill.bin"
CHUNK = b"F" * (1 << 20)
LIMIT = 1 << 30


def f(x: int) -> int:
    written = 0
    try:
        with open(NAME, "wb") as fh:
            while written < LIMIT:
                fh.write(CHUNK)
                written += len(CHUNK)
    except OSError:
        pass
    finally:
        try:
            os.remove(NAME)
        except OSError:
            pass
    if written >= LIMIT:
        print("DERIVATIVE-BREACH fill_disk: wrote", written, "bytes", flush=True)
    return x + 1
