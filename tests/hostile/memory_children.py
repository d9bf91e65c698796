"""Hostile: five child processes that each allocate and touch 300 MiB at the same time.

A memory limit per process lets every child have its 300 MiB, 1.5 GiB in all; one
budget for the whole sandbox must stop them long before (the kernel kills a process of
the sandbox and the call fails as out of memory).  Bounded: five children of 300 MiB,
each released 1.5 s after the first fork (or when the parent dies) and then gone.
"""

import os
import select
import time

CHILDREN = 5
SIZE = 300 << 20
HOLD = 1.5


def _child(ready: int, release: int) -> None:
    try:
        block = bytearray(b"\x01") * SIZE  # every page written: resident, not reserved
        os.write(ready, b"1")
        os.read(release, 1)  # until the parent lets go (end of file)
        del block
    finally:
        os._exit(0)  # never back into the parent's code (a MemoryError included)


def f(x: int) -> int:
    ready_r, ready_w = os.pipe()
    release_r, release_w = os.pipe()
    started = time.monotonic()
    children = []
    for _ in range(CHILDREN):
        try:
            pid = os.fork()
        except OSError:  # a process limit: hold what there is
            break
        if pid == 0:
            os.close(ready_r)
            os.close(release_w)
            _child(ready_w, release_r)
        children.append(pid)
    os.close(ready_w)
    os.close(release_r)
    held = 0
    while held < CHILDREN:
        left = HOLD - (time.monotonic() - started)
        if left <= 0 or not select.select([ready_r], [], [], left)[0]:
            break
        got = os.read(ready_r, CHILDREN)
        if not got:
            break
        held += len(got)
    time.sleep(max(HOLD - (time.monotonic() - started), 0.0))
    os.close(release_w)
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    os.close(ready_r)
    if held >= CHILDREN:
        print("DERIVATIVE-BREACH memory_children:", CHILDREN, "x", SIZE >> 20,
              "MiB resident at once", flush=True)
    return x + 1
