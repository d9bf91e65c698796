"""The deterministic interleaving explorer (forge/inside/_explore.py).

Why these tests: a check-then-set race is invisible to sequential tests and, under the
GIL, almost always to stress tests too; the explorer must find it every time, report the
interleaving, replay it, and must neither report nor hang on correct locked code.
"""

from __future__ import annotations

import _thread
import functools
import queue
import threading
import time
from threading import Lock as _ImportedLock
from typing import Any

import pytest

from derivative.forge.inside import _explore
from derivative.forge.inside._explore import (
    CooperativeLock,
    ExploreResult,
    Schedule,
    ThreadResult,
    explore,
    files_filter,
    replay,
    runs,
)

# The real factories, as this module found them (threading.Lock is a function before
# Python 3.13 and a class from 3.13 on).
_REAL_LOCK_FACTORY = threading.Lock
_REAL_RLOCK_FACTORY = threading.RLock
_REAL_SLEEP = time.sleep

# --------------------------------------------------------------------------- targets


class TokenStore:
    """Check-then-set on a dict: correct in sequence, racy under threads."""

    def __init__(self) -> None:
        self._used: dict[str, str] = {}

    def reset(self, token: str, password: str) -> str:
        if self._used.get(token) is not None:
            return "rejected"
        self._used[token] = password
        return "ok"


class InTokenStore:
    """The same race written with ``in`` (a CONTAINS_OP read of the dict)."""

    def __init__(self) -> None:
        self._used: dict[str, str] = {}

    def reset(self, token: str, password: str) -> str:
        if token in self._used:
            return "rejected"
        self._used[token] = password
        return "ok"


class LockedTokenStore:
    def __init__(self) -> None:
        self._used: dict[str, str] = {}
        self._lock = threading.Lock()

    def reset(self, token: str, password: str) -> str:
        with self._lock:
            if self._used.get(token) is not None:
                return "rejected"
            self._used[token] = password
            return "ok"


class RLockTokenStore:
    """Re-enters its RLock through a helper: a plain Lock would deadlock here."""

    def __init__(self) -> None:
        self._used: dict[str, str] = {}
        self._lock = threading.RLock()

    def _seen(self, token: str) -> bool:
        with self._lock:
            return token in self._used

    def reset(self, token: str, password: str) -> str:
        with self._lock:
            if self._seen(token):
                return "rejected"
            self._used[token] = password
            return "ok"


class HalfLockedStore:
    """Locks the check and the set separately: still racy."""

    def __init__(self) -> None:
        self._used: dict[str, str] = {}
        self._lock = threading.RLock()

    def reset(self, token: str, password: str) -> str:
        with self._lock:
            seen = token in self._used
        if seen:
            return "rejected"
        with self._lock:
            self._used[token] = password
        return "ok"


class SetdefaultStore:
    """Atomic by the GIL: ``dict.setdefault`` is one C call."""

    def __init__(self) -> None:
        self._used: dict[str, object] = {}

    def reset(self, token: str, password: str) -> str:
        marker = object()
        return "ok" if self._used.setdefault(token, marker) is marker else "rejected"


class Counter:
    def __init__(self) -> None:
        self.n = 0

    def inc(self) -> None:
        self.n += 1


def reset_t1(store: Any) -> object:
    return store.reset("t1", "correct horse")


def at_most_one_ok(_store: object, results: tuple[ThreadResult, ...]) -> object:
    oks = sum(1 for r in results if r.ok and r.value == "ok")
    return oks <= 1 or f"{oks} resets returned ok for one token"


# --------------------------------------------------------------------------- the race


def test_sequential_use_gives_one_ok() -> None:
    store = TokenStore()
    assert [store.reset("t1", "pw"), store.reset("t1", "pw")] == ["ok", "rejected"]
    # the default schedule runs the threads one after the other
    run = replay(TokenStore, [reset_t1, reset_t1], Schedule())
    assert [r.value for r in run.results] == ["ok", "rejected"]
    assert run.preemptions == 0


def test_check_then_set_race_is_found_with_its_interleaving() -> None:
    res = explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok)
    assert res.violated and res.kind == "check"
    assert res.message == "2 resets returned ok for one token"
    assert res.reproduced is True
    assert [r.value for r in res.results] == ["ok", "ok"]
    assert res.schedule is not None and len(res.schedule.switches) >= 1
    assert res.schedules_run < 20  # one preemption suffices: found among the first ones
    text = res.trace_text
    assert "if self._used.get(token) is not None:" in text
    assert "self._used[token] = password" in text
    assert "-- switch: preempts T0 before" in text
    assert 'T1   returned "ok"' in text and 'T0   returned "ok"' in text
    # T1's whole reset runs between T0's check and T0's set
    check_t0 = text.index("T0   test_explore.py")
    switch = text.index("-- switch: preempts T0")
    set_t1 = text.index("T1   test_explore.py:")
    assert check_t0 < switch < set_t1
    assert "preempts T0" in res.summary


def test_the_result_is_the_same_every_run() -> None:
    first = explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok)
    for _ in range(3):
        again = explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok)
        assert again.schedule == first.schedule
        assert again.schedules_run == first.schedules_run
        assert again.trace_text == first.trace_text, (
            f"\n{first.trace_text}\n---- differs from ----\n{again.trace_text}"
        )
        assert again.summary == first.summary


def test_the_failing_schedule_replays_exactly() -> None:
    res = explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok)
    assert res.schedule is not None
    for schedule in (res.schedule, str(res.schedule)):
        run = replay(TokenStore, [reset_t1, reset_t1], schedule)
        assert [r.value for r in run.results] == ["ok", "ok"], run.trace_text()
        assert run.schedule == res.schedule, run.trace_text()
        assert not run.diverged
        assert run.trace_text() in res.trace_text, f"{run.trace_text()}\n----\n{res.trace_text}"


def test_membership_test_race_is_found_too() -> None:
    res = explore(InTokenStore, [reset_t1, reset_t1], at_most_one_ok)
    assert res.violated and res.reproduced
    assert "if token in self._used:" in res.trace_text


def test_three_threads_race() -> None:
    res = explore(TokenStore, [reset_t1] * 3, at_most_one_ok)
    assert res.violated
    assert sum(r.value == "ok" for r in res.results) >= 2


# --------------------------------------------------------------------------- correct code


@pytest.mark.parametrize("threads", [2, 3])
def test_locked_store_is_explored_fully_without_violation(threads: int) -> None:
    res = explore(LockedTokenStore, [reset_t1] * threads, at_most_one_ok, max_preemptions=2)
    assert not res.violated, res.trace_text
    assert res.exhausted
    assert res.schedules_run > 10


def test_locked_store_schedules_do_contend_for_the_lock() -> None:
    # Proof that the exploration above is not vacuous: some schedules park a thread on
    # the lock while the other holds it, and every one of them still finishes.
    contended = 0
    for run in runs(LockedTokenStore, [reset_t1, reset_t1], max_preemptions=1):
        assert not run.deadlock and run.aborted is None
        assert sorted(str(r.value) for r in run.results) == ["ok", "rejected"]
        if "waits for self._lock" in run.trace_text():
            contended += 1
    assert contended >= 1


def test_rlock_store_is_explored_fully_without_violation() -> None:
    res = explore(RLockTokenStore, [reset_t1, reset_t1], at_most_one_ok)
    assert not res.violated, res.trace_text
    assert res.exhausted


def test_locking_check_and_set_separately_is_still_a_race() -> None:
    res = explore(HalfLockedStore, [reset_t1, reset_t1], at_most_one_ok)
    assert res.violated and res.reproduced


def test_setdefault_is_atomic() -> None:
    res = explore(SetdefaultStore, [reset_t1, reset_t1], at_most_one_ok)
    assert not res.violated
    assert res.exhausted


def test_counter_increment_race() -> None:
    res = explore(Counter, [Counter.inc, Counter.inc], lambda c, _r: c.n == 2 or f"n == {c.n}")
    assert res.violated and res.message == "n == 1"
    assert "self.n += 1" in res.trace_text
    # one line, three opcodes: invisible at line granularity, by design
    coarse = explore(
        Counter, [Counter.inc, Counter.inc], lambda c, _r: c.n == 2, granularity="line"
    )
    assert not coarse.violated and coarse.exhausted


def test_line_granularity_sees_races_across_lines() -> None:
    res = explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok, granularity="line")
    assert res.violated and res.reproduced
    fine = explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok, max_preemptions=2)
    locked_coarse = explore(LockedTokenStore, [reset_t1] * 2, at_most_one_ok, granularity="line")
    locked_fine = explore(LockedTokenStore, [reset_t1] * 2, at_most_one_ok)
    assert locked_coarse.exhausted and not locked_coarse.violated
    assert locked_coarse.schedules_run < locked_fine.schedules_run
    assert fine.violated


# --------------------------------------------------------------------------- blocking


class Philosophers:
    def __init__(self) -> None:
        self.a = threading.Lock()
        self.b = threading.Lock()

    def ab(self) -> int:
        with self.a, self.b:
            return 1

    def ba(self) -> int:
        with self.b, self.a:
            return 2


def test_lock_order_inversion_is_reported_as_a_deadlock() -> None:
    started = time.monotonic()
    res = explore(Philosophers, [Philosophers.ab, Philosophers.ba], lambda _o, _r: True)
    # found as a deadlock, not cut by the 30 s budget (a wide margin for a loaded machine)
    assert time.monotonic() - started < 25
    assert res.violated and res.kind == "deadlock"
    assert [r.status for r in res.results] == ["deadlocked", "deadlocked"]
    assert "waits for self.b" in res.trace_text and "waits for self.a" in res.trace_text
    assert res.reproduced


class Mailbox:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.items: list[int] = []
        self.event = threading.Event()
        self.q: queue.Queue[int] = queue.Queue()

    def get(self) -> int:
        with self.cond:
            while not self.items:
                self.cond.wait()
            return self.items.pop()

    def put(self) -> None:
        with self.cond:
            self.items.append(7)
            self.cond.notify()

    def q_get(self) -> int:
        return self.q.get()

    def q_put(self) -> None:
        self.q.put(5)


@pytest.mark.parametrize(
    ("bodies", "expected"),
    [((Mailbox.get, Mailbox.put), 7), ((Mailbox.q_get, Mailbox.q_put), 5)],
)
def test_condition_and_queue_waits_are_cooperative(bodies: Any, expected: int) -> None:
    res = explore(Mailbox, list(bodies), lambda _m, r: r[0].value == expected)
    assert not res.violated, res.trace_text
    assert res.exhausted


class Flag:
    def __init__(self) -> None:
        self.ready = False
        self.event = threading.Event()
        self.value: int | None = None

    def spin(self) -> str:
        while not self.ready:
            time.sleep(0.5)  # a yield under the explorer: no real delay
        return "done"

    def raise_flag(self) -> None:
        self.ready = True

    def wait_briefly(self) -> int | None:
        self.event.wait(0.5)
        return self.value

    def publish_wrong_order(self) -> None:
        self.event.set()
        self.value = 42


def test_sleep_is_a_yield_and_polling_loops_finish() -> None:
    started = time.monotonic()
    res = explore(Flag, [Flag.spin, Flag.raise_flag], lambda _f, r: r[0].value == "done")
    assert not res.violated and res.exhausted  # the whole space, not cut by the budget
    assert time.monotonic() - started < 25


def test_event_published_before_the_value_is_caught() -> None:
    res = explore(
        Flag, [Flag.wait_briefly, Flag.publish_wrong_order],
        lambda _f, r: r[0].value == 42 or f"the waiter saw {r[0].value}",
    )
    assert res.violated and res.message == "the waiter saw None"


class HiddenRealLock:
    """A real lock the explorer cannot replace (inside a list): blocking on it stalls."""

    def __init__(self) -> None:
        self.locks = [_thread.allocate_lock()]
        self.n = 0

    def work(self) -> None:
        with self.locks[0]:
            value = self.n
            self.n = value + 1


def test_blocking_outside_the_instrumented_primitives_does_not_hang() -> None:
    started = time.monotonic()
    res = explore(
        HiddenRealLock, [HiddenRealLock.work] * 2, lambda o, _r: o.n == 2 or f"n == {o.n}",
        max_schedules=8, stall_timeout=0.05,
    )
    assert not res.violated, res.trace_text
    assert res.schedules_run == 8  # every schedule ran: none hung until the budget
    assert time.monotonic() - started < 25
    stalled = [
        run.stalls
        for run in runs(HiddenRealLock, [HiddenRealLock.work] * 2, max_schedules=8,
                        stall_timeout=0.05)
    ]
    assert stalled[0] == 0  # no contention in the default schedule
    assert any(stalled)  # a preemption inside the critical section stalls the other


_MODULE_LOCK = threading.Lock()


class UsesModuleLocks:
    def __init__(self) -> None:
        self.own = _ImportedLock()
        self.shared = _MODULE_LOCK

    def kinds(self) -> tuple[str, str, bool]:
        with _MODULE_LOCK, self.own:
            return type(_MODULE_LOCK).__name__, type(self.own).__name__, self.shared is _MODULE_LOCK


def test_module_locks_and_imported_factories_become_cooperative_for_the_run() -> None:
    run = replay(UsesModuleLocks, [UsesModuleLocks.kinds], Schedule())
    # one real lock reachable two ways stays one (cooperative) lock
    assert run.results[0].value == ("CooperativeLock", "CooperativeLock", True)
    res = explore(UsesModuleLocks, [UsesModuleLocks.kinds] * 2, lambda _o, _r: True)
    assert not res.violated and res.exhausted
    # and everything is put back afterwards
    assert type(_MODULE_LOCK) is type(_thread.allocate_lock())
    assert _ImportedLock is _REAL_LOCK_FACTORY
    assert threading.Lock is _REAL_LOCK_FACTORY
    assert threading.RLock is _REAL_RLOCK_FACTORY
    assert time.sleep is _REAL_SLEEP


def test_patches_are_restored_when_setup_fails() -> None:
    def broken() -> object:
        raise RuntimeError("setup failed")

    with pytest.raises(RuntimeError, match="setup failed"):
        explore(broken, [reset_t1], at_most_one_ok)
    assert threading.Lock is _REAL_LOCK_FACTORY
    assert threading.RLock is _REAL_RLOCK_FACTORY
    assert time.sleep is _REAL_SLEEP


def test_cooperative_locks_behave_as_real_ones_outside_the_explorer() -> None:
    lock = CooperativeLock()
    assert lock.acquire() and lock.locked()
    assert not lock.acquire(False)
    assert not lock.acquire(True, 0.01)
    lock.release()
    assert not lock.locked()
    rlock = _explore.CooperativeRLock()
    with rlock, rlock:
        assert rlock._is_owned()
    with pytest.raises(RuntimeError):
        rlock.release()
    done: list[bool] = []
    lock.acquire()
    t = threading.Thread(target=lambda: done.append(lock.acquire(True, 5)))
    t.start()
    lock.release()
    t.join(5)
    assert done == [True]


# --------------------------------------------------------------------------- results


class Strict:
    def __init__(self) -> None:
        self._used: set[str] = set()

    def reset(self, token: str, password: str) -> str:
        if token in self._used:
            raise ValueError(f"token {token} already used")
        self._used.add(token)
        return "ok"


def test_exceptions_in_bodies_are_results() -> None:
    seen: list[tuple[str, ...]] = []

    def record(_s: object, results: tuple[ThreadResult, ...]) -> bool:
        seen.append(tuple(r.status for r in results))
        return True

    res = explore(Strict, [reset_t1, reset_t1], record)
    assert not res.violated and res.exhausted
    assert ("returned", "raised") in seen  # sequential: the second one raises
    assert ("returned", "returned") in seen  # the race: nobody raises
    run = replay(Strict, [reset_t1, reset_t1], Schedule())
    err = run.results[1].error
    assert isinstance(err, ValueError) and "already used" in str(err)
    assert run.results[1].describe() == "raised ValueError: token t1 already used"


def test_check_failures_by_false_message_or_assertion() -> None:
    def by_assert(_s: object, results: tuple[ThreadResult, ...]) -> None:
        assert sum(r.value == "ok" for r in results) <= 1, "too many"

    for check, message in [
        (lambda _s, r: sum(x.value == "ok" for x in r) <= 1, "the check returned False"),
        (by_assert, "too many"),
    ]:
        res = explore(TokenStore, [reset_t1, reset_t1], check)
        assert res.violated and res.message.startswith(message)


class Forever:
    def __init__(self) -> None:
        self.x = 0

    def spin(self) -> None:
        while True:
            self.x += 1


def test_a_run_that_never_ends_hits_the_step_limit() -> None:
    res = explore(Forever, [Forever.spin], lambda _o, _r: True, max_steps=2_000)
    assert res.violated and res.kind == "step_limit"
    assert res.results[0].status == "aborted"


# --------------------------------------------------------------------------- the search


def test_each_schedule_is_run_once_within_the_preemption_bound() -> None:
    for bound in (0, 1, 2):
        seen = []
        for run in runs(TokenStore, [reset_t1, reset_t1], max_preemptions=bound):
            assert run.preemptions <= bound
            seen.append(run.schedule)
        assert len(seen) == len(set(seen))
        if bound == 0:
            assert all(r.preemptions == 0 for r in [replay(TokenStore, [reset_t1] * 2, s)
                                                     for s in seen])
    # fewest preemptions first
    counts = [run.preemptions for run in runs(TokenStore, [reset_t1] * 2, max_preemptions=2)]
    assert counts == sorted(counts)
    assert counts[-1] == 2


def test_no_preemption_means_no_race() -> None:
    res = explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok, max_preemptions=0)
    assert not res.violated and res.exhausted


def test_symmetry_reduction_keeps_the_race_and_prunes_schedules() -> None:
    same = explore(LockedTokenStore, [reset_t1] * 2, at_most_one_ok)
    # two distinct callables running the very same code: no reduction by default
    distinct = explore(
        LockedTokenStore, [functools.partial(reset_t1), functools.partial(reset_t1)],
        at_most_one_ok,
    )
    assert same.exhausted and distinct.exhausted
    assert same.schedules_run < distinct.schedules_run
    off = explore(LockedTokenStore, [reset_t1] * 2, at_most_one_ok, symmetric=False)
    assert off.schedules_run == distinct.schedules_run
    assert explore(TokenStore, [reset_t1] * 3, at_most_one_ok, symmetric=True).violated


def test_budget_and_timeout_stop_the_search() -> None:
    res = explore(LockedTokenStore, [reset_t1] * 3, at_most_one_ok, max_schedules=5)
    assert res.schedules_run == 5 and not res.exhausted and not res.violated
    started = time.monotonic()
    res = explore(LockedTokenStore, [reset_t1] * 3, at_most_one_ok, timeout=0.05)
    assert not res.exhausted  # cut by the clock (what decides is that it was cut at all)
    assert time.monotonic() - started < 10


def test_trace_filter_limits_the_scheduling_points() -> None:
    here = files_filter(__file__)
    assert here(__file__) and not here(threading.__file__)
    assert explore(TokenStore, [reset_t1] * 2, at_most_one_ok, trace_filter=here).violated
    # code without scheduling points runs atomically
    nothing = explore(TokenStore, [reset_t1] * 2, at_most_one_ok, trace_filter=lambda _f: False)
    assert not nothing.violated and nothing.exhausted
    assert files_filter(_explore)(_explore.__file__)


def test_schedule_text_round_trips() -> None:
    s = Schedule(((3, 1), (9, 0)))
    assert str(s) == "3:1,9:0"
    assert Schedule.parse("3:1, 9:0") == s
    assert Schedule.parse("default") == Schedule() == Schedule.parse("")
    with pytest.raises(ValueError):
        Schedule.parse("3-1")


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError):
        explore(TokenStore, [reset_t1], at_most_one_ok, granularity="statement")
    with pytest.raises(ValueError):
        explore(TokenStore, [], at_most_one_ok)
    with pytest.raises(ValueError):
        explore(TokenStore, [reset_t1], at_most_one_ok, names=["a", "b"])


def test_names_appear_in_the_trace() -> None:
    res = explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok, names=["alice", "bob"])
    assert isinstance(res, ExploreResult)
    assert "alice" in res.trace_text and "bob" in res.trace_text
    assert "preempts alice" in res.summary


def test_no_thread_is_left_behind() -> None:
    def carriers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name.startswith("explore-worker")]

    explore(LockedTokenStore, [reset_t1] * 3, at_most_one_ok, max_schedules=50)
    deadline = time.monotonic() + 5
    while carriers() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert carriers() == []
