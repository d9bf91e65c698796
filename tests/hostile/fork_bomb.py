"""Hostile: fork as many processes as possible, bounded at 2000.

Bounded so that a failed isolation cannot take this machine down: every child sleeps
2 s and exits, and the parent stops at 2000 forks or at the first refusal, then reaps.
"""

import os
import time

LIMIT = 2000


def f(x: int) -> int:
    children: list[int] = []
    try:
        for _ in range(LIMIT):
            pid = os.fork()
            if pid == 0:
                time.sleep(2.0)
                os._exit(0)
            children.append(pid)
    except OSError:
        pass
    if len(children) >= LIMIT:
        print("DERIVATIVE-BREACH fork_bomb: forked", len(children), "processes", flush=True)
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    return x + 1
