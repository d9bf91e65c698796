"""``Limits.colocate``: the judging thread and the sandbox's processes share one CPU.

The host asks and the candidate answers in turn, so nothing is lost by running them on one
CPU, and each of the three wake-ups of a call (host to runner, runner to judge, judge to
host) stays on a CPU that is already awake.  The thread's own affinity comes back when the
session closes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from derivative.forge.sandbox._process import ProcessLauncher
from derivative.forge.sandbox._sandbox import Limits, open_sandbox

PIDS = '''
import os


def affinity():
    return sorted(os.sched_getaffinity(0))
'''


def test_the_sandbox_runs_on_the_judging_threads_cpu_and_the_thread_is_given_back(
    write_candidate: Callable[..., Path]
) -> None:
    before = os.sched_getaffinity(0)
    with open_sandbox(write_candidate(PIDS), contract_sha256="c", launcher=ProcessLauncher(),
                      guard=False) as sb:
        pinned = os.sched_getaffinity(0)
        assert len(pinned) == 1
        assert sb.call("affinity").value == sorted(pinned)  # the runner, inside
        cgroup = sb._current.running.cgroup  # type: ignore[union-attr]
        for pid in cgroup.members():
            assert os.sched_getaffinity(pid) == pinned
    assert os.sched_getaffinity(0) == before


def test_colocation_can_be_turned_off(write_candidate: Callable[..., Path]) -> None:
    before = os.sched_getaffinity(0)
    with open_sandbox(write_candidate(PIDS), contract_sha256="c", launcher=ProcessLauncher(),
                      guard=False, limits=Limits(colocate=False)) as sb:
        assert os.sched_getaffinity(0) == before
        assert sb.call("affinity").value == sorted(before)
