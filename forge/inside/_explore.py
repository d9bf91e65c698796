# derivative: stdlib-only
"""Deterministic, systematic exploration of thread interleavings (standard library only).

**One file, on purpose.**  The explorer is one unit staged as one file: the sandbox copies
it beside the worker, and the worker loads it by path (``spec_from_file_location`` under a
private module name) only when an ``explore`` request arrives, because inside the sandbox
the candidate's folder is first on ``sys.path`` and ``sys.modules`` is the candidate's to
change.  Split, its parts would have to find each other the same way, each one more file
to stage, load by path and keep from being shadowed.  The testing room imports the same
file in process (``forge.inside.explorer``).  The file is long but in sections: results,
the code index, the scheduler, cooperative primitives, patching, the search and traces.

Why this exists: a count invariant such as "at most one successful reset per token" is
broken by a check-then-set race that a barrier stress test almost never hits under the
GIL (the interpreter switches threads only every few milliseconds, so the few
instructions between the check and the set almost never lose the processor).  This
module runs N thread bodies against a fresh object under a scheduler of its own: only
one thread runs at a time and control changes hands only at *scheduling points*, so a
schedule always produces the same execution, and
schedules are enumerated systematically instead of being left to chance.  It runs inside
the sandbox beside the stdlib-only worker, so it imports nothing but the standard
library, and it works on Python 3.10 to 3.13.

Use::

    from derivative.forge.inside._explore import explore, replay

    res = explore(
        setup=TokenStore,                                   # a fresh object per schedule
        bodies=[reset_t1, reset_t1],                        # one callable(obj) per thread
        check=lambda store, results: sum(r.value == "ok" for r in results) <= 1,
        max_preemptions=2, max_schedules=5_000, timeout=10.0,
    )
    if res.violated:
        print(res.trace_text)                               # the interleaving, line by line
        run = replay(TokenStore, [reset_t1, reset_t1], res.schedule)   # the same again

``explore(setup, bodies, check, **options) -> ExploreResult``
    ``check(obj, results)`` is called after every schedule with the object and one
    ``ThreadResult`` per thread (``status`` "returned" / "raised" / "deadlocked" /
    "aborted", ``value``, ``error``, ``ok``): an exception in a body is a result, never
    a crash.  The check passes by returning ``True`` or ``None``; it fails by returning
    ``False`` or a message string, or by raising ``AssertionError``.  A deadlock (every
    unfinished thread blocked on an instrumented lock) and a run longer than
    ``max_steps`` are violations too (``kind`` "deadlock" / "step_limit").  The first
    violation ends the search; it is replayed once (``reproduced``) and its trace
    returned.  ``ExploreResult``: ``violated, kind, message, schedule, trace_text,
    summary, schedules_run, exhausted`` (the whole bounded space was run), ``elapsed,
    results, reproduced``.

``runs(setup, bodies, **options) -> Generator[Run]``
    The same search, one ``Run`` per schedule (``schedule``, ``results``, ``obj``,
    ``preemptions``, ``deadlock``, ``aborted``, ``stalls``, ``exhausted``, ``summary()``,
    ``trace_text()``); the caller judges each run itself and stops iterating when it
    has seen enough.  This is the form for the test engine (``forge/testing/_inprocess.py``)
    and the sandbox worker.

``replay(setup, bodies, schedule, **options) -> Run``
    Runs exactly one schedule (a ``Schedule`` or its text, ``Schedule.parse``).

Options (keyword only): ``max_schedules`` (10,000), ``max_preemptions`` (2), ``timeout``
(seconds for the whole search, 30), ``max_steps`` (scheduling points per schedule,
200,000), ``granularity`` ("opcode" or "line"), ``trace_filter`` (which code gets
scheduling points, a predicate on the file name; default ``default_trace_filter``:
everything but the standard library and this module; ``files_filter(module, ...)``
limits it to the code under test, which keeps a caller's glue out of the schedule
space), ``names`` (thread names in traces), ``modules`` (the modules under test: their
lock factories and unlocked lock instances are replaced), ``symmetric`` (treat unstarted
threads as interchangeable; default: when all bodies are the same object),
``stall_timeout`` (seconds before a thread blocked outside the instrumented primitives
loses its turn, 0.5).

How it works
------------
* Scheduling points sit before every opcode that may touch shared state, in the code
  the trace filter accepts; purely frame-local opcodes (``LOAD_FAST``, ``LOAD_CONST``,
  jumps, ...) get none, since a switch before them equals a switch before the next
  shared one.  With ``granularity="line"`` the points are line starts (fewer schedules,
  but a race inside one line such as ``n += 1`` is invisible).  Code without points
  (the standard library, C functions such as ``dict.setdefault``) runs atomically.
* Events come from ``sys.settrace`` with ``f_trace_opcodes`` on Python < 3.12 and from
  ``sys.monitoring`` (INSTRUCTION or LINE events on the accepted code objects, under a
  free tool id, 3 or 4 first) on 3.12+, where opcode events from ``sys.settrace``
  proved unreliable (none at all in worker threads on 3.12.1).
* The turn passes directly from thread to thread through a private gate lock per
  thread; the default policy keeps the running thread running.  Worker threads are
  kept between the schedules of one search (starting a thread costs more than a small
  schedule).
* Search: CHESS-style preemption bounding.  Each run records its *decisions* (points
  where more than one thread could run).  Every alternative at every decision after
  the run's forced prefix becomes a new prefix, and prefixes run in order of their
  preemption count (switching away from a thread that could continue is a preemption;
  switching after it blocks or finishes is free; after ``time.sleep`` the free choice
  is the next thread), so all schedules with 0 preemptions come first, then 1, then 2.
  Each schedule runs exactly once.  With ``symmetric`` on, of the threads that have
  not started yet only the lowest-numbered is ever chosen.
* Blocking: during a run ``threading.Lock``, ``threading.RLock``,
  ``threading._allocate_lock`` (so ``Condition``, ``Event``, ``Semaphore``,
  ``Barrier`` and ``queue.Queue`` built on them) and ``time.sleep`` are replaced by
  cooperative versions, as are the same names imported into the modules of the setup,
  the bodies and the object's class, the unlocked module-level lock instances of the
  modules under test and the object's own lock attributes (one real lock reachable
  twice stays one lock).  A worker that finds such a lock taken is parked and another
  thread runs; when nobody can run, that is a deadlock.  A wait with a timeout expires
  only when no other thread can run; ``time.sleep`` yields and does not sleep.  Outside
  worker threads the cooperative locks behave as the real ones.  A worker that blocks
  anywhere else (a real lock the explorer could not replace, I/O) loses its turn after
  ``stall_timeout`` (``Run.stalls`` counts this); such runs may not be deterministic.
* A schedule is the list of decisions where the choice differed from the default,
  ``"decision:thread"`` pairs, so a replay needs the same code and the same Python
  version (bytecode differs between versions).
* Limits: threads started by the bodies are not controlled; only one search should run
  at a time per process (the lock factories are process-wide); the first schedule of a
  search may call ``setup`` twice (to learn which modules define the object's class).
"""

from __future__ import annotations

import _thread
import dis
import enum
import functools
import gc
import heapq
import linecache
import os
import re
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from types import CodeType, FrameType, ModuleType
from typing import Any

__all__ = [
    "CooperativeLock",
    "CooperativeRLock",
    "ExploreResult",
    "Run",
    "Schedule",
    "ThreadResult",
    "cooperative_sleep",
    "default_trace_filter",
    "explore",
    "files_filter",
    "plain",
    "replay",
    "runs",
]

# The real primitives, captured before anything can be patched.
_real_lock: Callable[[], Any] = _thread.allocate_lock
_real_sleep = time.sleep
_get_ident = _thread.get_ident
_LOCK_TYPE: type = type(_thread.allocate_lock())
_RLOCK_TYPE: type = type(threading.RLock())
_ORIG_THREADING_LOCK: object = threading.Lock
_ORIG_THREADING_RLOCK: object = threading.RLock
_ORIG_ALLOCATE: object = getattr(threading, "_allocate_lock", _thread.allocate_lock)

_THIS_FILE = os.path.normcase(os.path.abspath(__file__))
if _THIS_FILE.endswith((".pyc", ".pyo")):
    _THIS_FILE = _THIS_FILE[:-1]

# Opcodes that only touch the frame's own locals/stack: no scheduling point before them.
_LOCAL_OPS = frozenset(
    {
        "NOP", "RESUME", "CACHE", "EXTENDED_ARG", "NOT_TAKEN",
        "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_LOAD_FAST",
        "LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW", "STORE_FAST",
        "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST", "DELETE_FAST", "LOAD_CONST",
        "LOAD_SMALL_INT", "RETURN_CONST", "POP_TOP", "PUSH_NULL", "PRECALL", "KW_NAMES",
        "COPY", "SWAP", "DUP_TOP", "DUP_TOP_TWO", "ROT_TWO", "ROT_THREE", "ROT_FOUR",
        "ROT_N", "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
        "JUMP_ABSOLUTE", "JUMP", "JUMP_NO_INTERRUPT", "POP_JUMP_FORWARD_IF_NONE",
        "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE",
        "POP_JUMP_BACKWARD_IF_NOT_NONE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE",
        "RETURN_VALUE", "MAKE_CELL", "COPY_FREE_VARS", "LOAD_CLOSURE", "BUILD_TUPLE",
        "BUILD_LIST", "BUILD_CONST_KEY_MAP", "LIST_APPEND", "SET_ADD", "MAP_ADD",
        "RETURN_GENERATOR", "GEN_START", "LOAD_ASSERTION_ERROR", "PUSH_EXC_INFO",
        "POP_EXCEPT", "POP_BLOCK", "SETUP_FINALLY", "SETUP_CLEANUP", "END_FOR", "IS_OP",
        "CHECK_EXC_MATCH",
    }
)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class ThreadResult:
    """What one thread body did in one schedule: returned ``value`` or raised ``error``,
    or never finished (``deadlocked``: blocked when nobody could run; ``aborted``: the run
    was stopped by a limit)."""

    thread: int
    status: str
    value: object = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        """True when the body returned normally."""
        return self.status == "returned"

    def describe(self) -> str:
        """``returned 'ok'`` / ``raised ValueError: ...`` / ``deadlocked``."""
        if self.status == "returned":
            return f"returned {_short(self.value)}"
        if self.status == "raised" and self.error is not None:
            text = str(self.error)
            text = text if len(text) <= 80 else text[:77] + "..."
            return f"raised {type(self.error).__name__}: {text}"
        return self.status


@dataclass(frozen=True)
class Schedule:
    """The decisions of one schedule that differ from the default policy.

    ``switches`` holds ``(decision, thread)`` pairs: at the ``decision``-th point where
    more than one thread could run, ``thread`` runs.  Everywhere else the default
    applies: the running thread continues if it can, otherwise the lowest-numbered
    runnable thread runs (after ``time.sleep``: the next runnable thread in turn).
    """

    switches: tuple[tuple[int, int], ...] = ()

    def __str__(self) -> str:
        return ",".join(f"{d}:{t}" for d, t in self.switches) or "default"

    @classmethod
    def parse(cls, text: str) -> Schedule:
        """The inverse of ``str()``: ``"4:1,9:0"`` (or ``"default"`` / ``""``)."""
        text = text.strip()
        if text in ("", "default"):
            return cls(())
        pairs: list[tuple[int, int]] = []
        for part in text.split(","):
            d, sep, t = part.strip().partition(":")
            if not sep:
                raise ValueError(f"not a schedule entry: {part!r} (expected decision:thread)")
            pairs.append((int(d), int(t)))
        return cls(tuple(pairs))


@dataclass(frozen=True)
class _Decision:
    index: int
    enabled: tuple[int, ...]
    current: int  # the thread that held the turn, -1 for none
    preemptive: bool  # it could have continued: any choice but the default is a preemption
    default: int
    chosen: int
    where: object  # (code, offset) or a tag string
    fresh: tuple[int, ...] = ()  # enabled threads that have not started yet


@dataclass
class Run:
    """One executed schedule."""

    schedule: Schedule
    results: tuple[ThreadResult, ...]
    obj: object
    names: tuple[str, ...]
    preemptions: int
    steps: int
    deadlock: bool
    aborted: str | None  # why the run was stopped early, None if it completed
    diverged: bool  # a forced decision was impossible: the code is not deterministic
    exhausted: bool = False  # set by ``runs``: no schedule is left to explore after this one
    stalls: int = 0  # turns taken from a thread blocked outside our primitives (see ``replay``)
    decisions: tuple[_Decision, ...] = field(repr=False, default=())
    _trail: list[tuple[int, object, object]] = field(repr=False, default_factory=list)
    _index: _CodeIndex | None = field(repr=False, default=None)

    def summary(self) -> str:
        """One line: who ran in turn, and why each switch happened."""
        parts: list[str] = []
        prev: tuple[int, object, object] | None = None
        for entry in self._trail:
            if prev is None or entry[0] != prev[0]:
                text = self.names[entry[0]]
                if prev is not None:
                    text += f" ({_switch_reason(prev, self.names, self._index)})"
                parts.append(text)
            prev = entry
        out = " -> ".join(parts) or "-"
        if self.deadlock:
            out += " -> deadlock"
        elif self.aborted:
            out += f" -> stopped: {self.aborted}"
        return f"[{self.schedule}] {out}"

    def trace_text(self, max_lines: int = 400) -> str:
        """The interleaving, one source line per row, with every switch marked."""
        return _format_trace(self, max_lines)


@dataclass(frozen=True)
class ExploreResult:
    """The outcome of ``explore``."""

    violated: bool
    kind: str  # "" | "check" | "deadlock" | "step_limit"
    message: str
    schedule: Schedule | None
    trace_text: str
    schedules_run: int
    exhausted: bool
    elapsed: float
    results: tuple[ThreadResult, ...] = ()
    reproduced: bool | None = None
    summary: str = ""


# --------------------------------------------------------------------------- code index


class _CodeIndex:
    """Per code object: the offsets that are scheduling points, and where they are."""

    def __init__(self, trace_filter: Callable[[str], bool], granularity: str) -> None:
        self.trace_filter = trace_filter
        self.granularity = granularity
        # Keyed by id (code objects compare equal across files when their contents
        # do, and hashing one is slow); the code object is kept so the id stays valid.
        self._points: dict[int, tuple[CodeType, frozenset[int] | None]] = {}
        self._info: dict[int, tuple[CodeType, dict[int, tuple[int, str]]]] = {}

    def points(self, code: CodeType) -> frozenset[int] | None:
        entry = self._points.get(id(code))
        if entry is not None:
            return entry[1]
        result: frozenset[int] | None = None
        if self.granularity == "line" and self.trace_filter(code.co_filename):
            result = frozenset()
        elif self.trace_filter(code.co_filename):
            result = frozenset(
                i.offset for i in dis.get_instructions(code) if i.opname not in _LOCAL_OPS
            )
        self._points[id(code)] = (code, result)
        return result

    def info(self, code: CodeType, offset: int) -> tuple[str, int, str]:
        """(file, line, opname) of the instruction at ``offset``."""
        entry = self._info.get(id(code))
        table = entry[1] if entry is not None else None
        if table is None:
            table = {}
            starts = sorted(
                (o, ln) for o, ln in dis.findlinestarts(code) if ln is not None
            )
            line = code.co_firstlineno
            k = 0
            for ins in dis.get_instructions(code):
                while k < len(starts) and starts[k][0] <= ins.offset:
                    line = starts[k][1]
                    k += 1
                table[ins.offset] = (line, ins.opname)
            self._info[id(code)] = (code, table)
        line, op = table.get(offset, (code.co_firstlineno, "?"))
        return code.co_filename, line, op


def _stdlib_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {paths.get("stdlib", ""), paths.get("platstdlib", ""), os.path.dirname(os.__file__)}
    return tuple(os.path.normcase(os.path.abspath(d)) + os.sep for d in dirs if d)


_STDLIB = _stdlib_dirs()


def default_trace_filter(filename: str) -> bool:
    """Trace everything but this module, frozen modules and the standard library
    (third-party packages under site-/dist-packages are traced)."""
    if filename.startswith("<"):
        return not filename.startswith("<frozen")
    name = os.path.normcase(os.path.abspath(filename))
    if name == _THIS_FILE:
        return False
    if name.startswith(_STDLIB):
        return "site-packages" in name or "dist-packages" in name
    return True


def files_filter(*places: ModuleType | str | os.PathLike[str]) -> Callable[[str], bool]:
    """A ``trace_filter`` that gives scheduling points only to code in the given
    modules (a package: everything under its directory), files or directories.

    Use it to keep the caller's own glue (argument conversion, result wrapping) out of
    the schedule space: only the code under test then multiplies the schedules."""
    files: set[str] = set()
    dirs: list[str] = []
    for place in places:
        if isinstance(place, ModuleType):
            path = getattr(place, "__file__", None)
            if not path:
                continue
            path = os.path.abspath(path)
            if os.path.basename(path).startswith("__init__."):
                dirs.append(os.path.normcase(os.path.dirname(path)) + os.sep)
            else:
                files.add(os.path.normcase(path[:-1] if path.endswith(".pyc") else path))
        else:
            path = os.path.abspath(os.fspath(place))
            if os.path.isdir(path):
                dirs.append(os.path.normcase(path) + os.sep)
            else:
                files.add(os.path.normcase(path))
    prefixes = tuple(dirs)

    def accept(filename: str) -> bool:
        name = os.path.normcase(os.path.abspath(filename))
        return name in files or (bool(prefixes) and name.startswith(prefixes))

    return accept


# --------------------------------------------------------------------------- the scheduler

_NEW, _READY, _RUNNING, _BLOCKED, _STALLED, _DONE = range(6)


class _Abort(BaseException):
    """Unwinds a worker when its run is stopped (deadlock, limits)."""


class _Lockish:
    """What the scheduler needs from a cooperative lock."""

    __slots__ = ()

    def _free_for(self, ident: int) -> bool:  # pragma: no cover - interface
        raise NotImplementedError


class _Worker:
    __slots__ = (
        "abort_status", "body", "busy", "gate", "ident", "idx", "native", "parked",
        "result", "state", "timed_out", "timeout", "tracing", "waiting",
    )

    def __init__(self, idx: int, body: Callable[[Any], object]) -> None:
        self.idx = idx
        self.body = body
        self.gate = _real_lock()
        self.gate.acquire()
        self.state = _NEW
        self.parked = True
        self.waiting: _Lockish | None = None
        self.timeout = False
        self.timed_out = False
        self.ident = 0
        self.native = 0
        self.result: ThreadResult | None = None
        self.abort_status = "aborted"
        # tracing: the body is running; busy: inside the scheduler or a cooperative
        # primitive, whose own calls (e.g. a dataclass __init__) must get no points.
        self.tracing = False
        self.busy = False


# ident -> (execution, worker) for the threads currently under a scheduler.
_MANAGED: dict[int, tuple[_Execution, _Worker]] = {}


def _managed() -> tuple[_Execution, _Worker] | None:
    ctx = _MANAGED.get(_get_ident())
    if ctx is None or ctx[0].aborted is not None:
        return None
    return ctx


class _Execution:
    """One schedule: the worker threads, the turn, the decisions taken."""

    def __init__(
        self,
        obj: object,
        bodies: Sequence[Callable[[Any], object]],
        forced: dict[int, int],
        index: _CodeIndex,
        max_steps: int,
        deadline: float,
        stall_timeout: float,
        monitor: _Monitoring | None = None,
    ) -> None:
        self.obj = obj
        self.monitor = monitor
        self.workers = [_Worker(i, b) for i, b in enumerate(bodies)]
        self.forced = forced
        self.index = index
        self.max_steps = max_steps
        self.deadline = deadline
        self.stall_timeout = stall_timeout
        self.mu = _real_lock()
        self.done = _real_lock()
        self.done.acquire()
        self.current: _Worker | None = None
        self.decisions: list[_Decision] = []
        self.trail: list[tuple[int, object, object]] = []
        self.labels: dict[int, str] = {}
        self.steps = 0
        self.exited = 0
        self.aborted: str | None = None
        self.deadlock = False
        self.diverged = False
        self.time_out = False
        self.stalls = 0

    # ---- choosing

    def _enabled(self, w: _Worker) -> bool:
        s = w.state
        if s in (_NEW, _READY):
            return True
        if s == _RUNNING:
            return w is self.current
        if s == _BLOCKED and w.waiting is not None:
            return w.waiting._free_for(w.ident)
        return False

    def _choose(self, cur: _Worker | None, where: object, yielding: bool = False) -> _Worker | None:
        """Pick who runs next (mu held).  Records a decision when there is a choice."""
        workers = self.workers
        enabled = [w for w in workers if self._enabled(w)]
        timed = False
        if not enabled:
            enabled = [w for w in workers if w.state == _BLOCKED and w.timeout]
            timed = True
        if not enabled:
            return None
        if len(enabled) == 1:
            chosen = enabled[0]
        else:
            cur_on = cur is not None and cur in enabled
            default: _Worker
            if cur is not None and cur_on and not yielding:
                default = cur
            elif cur is not None and yielding:
                after = [w for w in enabled if w.idx > cur.idx]
                default = after[0] if after else enabled[0]
            else:
                default = enabled[0]
            chosen = default
            d = len(self.decisions)
            want = self.forced.get(d)
            if want is not None:
                pick = next((w for w in enabled if w.idx == want), None)
                if pick is None:
                    self.diverged = True
                else:
                    chosen = pick
            self.decisions.append(
                _Decision(
                    d,
                    tuple(w.idx for w in enabled),
                    cur.idx if cur is not None else -1,
                    cur_on,
                    default.idx,
                    chosen.idx,
                    where,
                    tuple(w.idx for w in enabled if w.state == _NEW),
                )
            )
        if timed:
            chosen.timed_out = True
        return chosen

    def _handoff(self, nxt: _Worker) -> None:
        self.current = nxt
        nxt.state = _RUNNING
        nxt.waiting = None
        if nxt.parked:
            nxt.parked = False
            nxt.gate.release()

    def _nobody(self) -> None:
        """No thread can run (mu held): finished, waiting for a stalled one, or deadlock."""
        self.current = None
        if all(w.state == _DONE for w in self.workers):
            return
        if any(w.state == _STALLED for w in self.workers):
            return
        self.deadlock = True
        for w in self.workers:
            if w.state == _BLOCKED:
                w.abort_status = "deadlocked"
        self._abort("deadlock")

    def _abort(self, reason: str) -> None:
        if self.aborted is None:
            self.aborted = reason
        self.current = None
        for w in self.workers:
            if w.parked:
                w.parked = False
                w.gate.release()

    def _park(self, me: _Worker) -> None:
        me.gate.acquire()
        if self.aborted is not None:
            raise _Abort

    def _reclaim(self, me: _Worker) -> bool:
        """A thread that lost its turn while stalled is back (mu held)."""
        if self.current is me:
            return True
        if self.current is None and self.aborted is None:
            self.current = me
            me.state = _RUNNING
            return True
        return False

    # ---- called from the worker threads

    def point(self, me: _Worker, where: object, offset: object, yielding: bool = False) -> None:
        with self.mu:
            if self.aborted is not None:
                raise _Abort
            park = False
            if not self._reclaim(me):
                me.state = _READY
                me.parked = True
                park = True
            else:
                self.steps += 1
                self.trail.append((me.idx, where, offset))
                if self.steps > self.max_steps:
                    self._abort(f"more than {self.max_steps} steps")
                    raise _Abort
                if not self.steps & 1023 and time.monotonic() > self.deadline:
                    self.time_out = True
                    self._abort("time budget exhausted")
                    raise _Abort
                nxt = self._choose(me, (where, offset) if offset is not None else where, yielding)
                if nxt is me or nxt is None:
                    return
                me.state = _READY
                me.parked = True
                self._handoff(nxt)
                park = True
        if park:
            self._park(me)

    def block(self, me: _Worker, lock: _Lockish, has_timeout: bool) -> bool:
        """Park ``me`` until ``lock`` may be free; True when the wait timed out."""
        was_busy = me.busy
        me.busy = True
        try:
            return self._block(me, lock, has_timeout)
        finally:
            me.busy = was_busy

    def _block(self, me: _Worker, lock: _Lockish, has_timeout: bool) -> bool:
        with self.mu:
            if self.aborted is not None:
                raise _Abort
            reclaimed = self._reclaim(me)
            me.state = _BLOCKED
            me.waiting = lock
            me.timeout = has_timeout
            me.timed_out = False
            if reclaimed:
                self.steps += 1
                label = self._label(lock)
                self.trail.append((me.idx, "block", label))
                nxt = self._choose(me, f"blocked on {label}")
                if nxt is me:
                    me.state = _RUNNING
                    me.waiting = None
                    timed = me.timed_out
                    me.timed_out = False
                    return timed
                if nxt is None:
                    self._nobody()
                    if self.aborted is not None:
                        raise _Abort
                else:
                    self._handoff(nxt)
            me.parked = True
        self._park(me)
        timed = me.timed_out
        me.timed_out = False
        return timed

    def finish(self, me: _Worker, result: ThreadResult) -> None:
        with self.mu:
            me.result = result
            reclaimed = self._reclaim(me)
            me.state = _DONE
            if self.aborted is not None or not reclaimed:
                return
            self.steps += 1
            self.trail.append((me.idx, "finish", result.describe()))
            nxt = self._choose(me, "finish")
            if nxt is None:
                self._nobody()
            else:
                self._handoff(nxt)

    def _label(self, lock: object) -> str:
        """A stable name for a lock in traces: the explored object's attribute holding
        it, else ``lock#n`` in order of first contention (never an address)."""
        key = id(lock)
        label = self.labels.get(key)
        if label is None:
            try:
                attrs = vars(self.obj)
            except TypeError:
                attrs = {}
            name = next((k for k, v in attrs.items() if v is lock), None)
            label = f"self.{name}" if name else f"lock#{len(self.labels) + 1}"
            self.labels[key] = label
        return label

    def _exit(self) -> None:
        with self.mu:
            self.exited += 1
            if self.exited == len(self.workers):
                self.done.release()

    # ---- the thread main

    def _make_tracer(self, me: _Worker) -> Callable[[FrameType, str, Any], Any]:
        """The ``sys.settrace`` event source (Python < 3.12)."""
        points_of = self.index.points
        point = self.point
        line_mode = self.index.granularity == "line"

        def global_trace(frame: FrameType, event: str, arg: Any) -> Any:
            if me.busy:
                return None
            pts = points_of(frame.f_code)
            if pts is None:
                return None
            if line_mode:

                def line_trace(frame: FrameType, event: str, arg: Any) -> Any:
                    if event == "line":
                        point(me, frame.f_code, frame.f_lasti)
                    return line_trace

                return line_trace

            def op_trace(frame: FrameType, event: str, arg: Any) -> Any:
                if event == "opcode" and frame.f_lasti in pts:
                    point(me, frame.f_code, frame.f_lasti)
                return op_trace

            # f_trace first: only then does setting f_trace_opcodes instrument the code
            # (3.13; returning the local tracer alone sets f_trace too late).
            frame.f_trace = op_trace
            frame.f_trace_lines = False
            frame.f_trace_opcodes = True
            return op_trace

        return global_trace

    def _main(self, me: _Worker) -> None:
        me.ident = _get_ident()
        me.native = threading.get_native_id()
        _MANAGED[me.ident] = (self, me)
        try:
            me.gate.acquire()
            if self.aborted is not None:
                result = ThreadResult(me.idx, me.abort_status)
            else:
                value: object = None
                error: BaseException | None = None
                status = "returned"
                if self.monitor is None:
                    sys.settrace(self._make_tracer(me))
                me.busy = False
                me.tracing = True
                try:
                    value = me.body(self.obj)
                except _Abort:
                    status = me.abort_status
                except BaseException as exc:  # a body's exception is a result, not a crash
                    status = "raised"
                    error = exc
                finally:
                    me.tracing = False
                    me.busy = True
                    if self.monitor is None:
                        sys.settrace(None)
                # Built only now: the dataclass __init__ must not get scheduling points.
                result = ThreadResult(me.idx, status, value=value, error=error)
            if me.abort_status == "deadlocked":  # even if the body swallowed _Abort
                result = ThreadResult(me.idx, "deadlocked")
            self.finish(me, result)
        finally:
            _MANAGED.pop(me.ident, None)

    # ---- driving one schedule (called in the explorer's thread)

    def execute(self, pool: _Pool) -> None:
        for w, carrier in zip(self.workers, pool.take(len(self.workers)), strict=True):
            carrier.submit(self, w)
        with self.mu:
            first = self._choose(None, "start")
            assert first is not None
            self._handoff(first)
        self._watch()

    def _watch(self) -> None:
        tick = max(0.001, min(0.05, self.stall_timeout / 4))
        last_steps = -1
        since = time.monotonic()
        aborted_at: float | None = None
        sleepy = 0
        while not self.done.acquire(True, tick):
            now = time.monotonic()
            with self.mu:
                if self.aborted is not None:
                    if aborted_at is None:
                        aborted_at = now
                    elif now - aborted_at > max(1.0, 5 * self.stall_timeout):
                        return  # threads stuck outside our control: leave them behind
                    continue
                if now > self.deadline:
                    self.time_out = True
                    self._abort("time budget exhausted")
                    continue
                if self.steps != last_steps:
                    last_steps = self.steps
                    since = now
                    sleepy = 0
                    if self.current is not None:
                        continue
                if self.current is None:
                    nxt = self._choose(None, "wakeup")
                    if nxt is not None:
                        self._handoff(nxt)
                        since = now
                    elif not any(w.state == _STALLED for w in self.workers):
                        self._nobody()
                    elif now - since > max(1.0, 10 * self.stall_timeout):
                        self._abort("threads blocked outside the instrumented primitives")
                    continue
                if now - since >= self.stall_timeout:
                    if _sleeping(self.current.native) is False:
                        sleepy = 0
                        continue  # runnable, just slow (a loaded machine): not a stall
                    sleepy += 1
                    if sleepy < 2:
                        continue  # seen asleep once: could be a moment's wait for the GIL
                    sleepy = 0
                    # The running thread blocks somewhere we cannot see: let others run.
                    cur = self.current
                    self.stalls += 1
                    cur.state = _STALLED
                    self.current = None
                    since = now
                    nxt = self._choose(None, f"stalled {cur.idx}")
                    if nxt is not None:
                        self._handoff(nxt)

    def results(self) -> tuple[ThreadResult, ...]:
        out: list[ThreadResult] = []
        for w in self.workers:
            out.append(w.result if w.result is not None else ThreadResult(w.idx, "aborted"))
        return tuple(out)


_MONITORING: Any = getattr(sys, "monitoring", None)


class _Monitoring:
    """The ``sys.monitoring`` event source (Python >= 3.12), one tool id per search.

    On 3.12 ``f_trace_opcodes`` set from a ``sys.settrace`` call event does not give
    opcode events (measured on 3.12.1), so there the explorer asks for INSTRUCTION (or
    LINE) events on exactly the code objects the trace filter accepts, started by a
    worker thread.  Events are global, so every callback first checks that the calling
    thread is a worker of this search; an offset that can never be a scheduling point
    is switched off for good (``DISABLE``)."""

    def __init__(self, index: _CodeIndex) -> None:
        mon = _MONITORING
        # 3 and 4 have no assigned role; then the profiler's, optimizer's, debugger's
        # and coverage's ids, if nobody holds them.
        tool = next((t for t in (3, 4, 2, 5, 0, 1) if mon.get_tool(t) is None), None)
        if tool is None:
            raise RuntimeError(
                "every sys.monitoring tool id is taken: the interleaving explorer needs one"
            )
        self.mon = mon
        self.tool: int = tool
        self.index = index
        self.line = index.granularity == "line"
        self.event: int = mon.events.LINE if self.line else mon.events.INSTRUCTION
        self.codes: list[CodeType] = []
        mon.use_tool_id(tool, "derivative-explore")
        mon.register_callback(tool, mon.events.PY_START, self._start)
        mon.register_callback(tool, self.event, self._step)
        mon.set_events(tool, mon.events.PY_START)
        mon.restart_events()

    def _worker(self) -> tuple[_Execution, _Worker] | None:
        ctx = _MANAGED.get(_get_ident())
        if ctx is None:
            return None
        me = ctx[1]
        if me.busy or not me.tracing or ctx[0].index is not self.index:
            return None
        return ctx

    def _start(self, code: CodeType, offset: int) -> object:
        if self._worker() is None:
            return None
        if self.index.points(code) is not None:
            self.mon.set_local_events(self.tool, code, self.event)
            self.codes.append(code)
        return self.mon.DISABLE

    def _step(self, code: CodeType, arg: int) -> object:
        ctx = self._worker()
        if ctx is None:
            return None
        pts = self.index.points(code)
        if pts is None:
            return None
        if self.line:
            ctx[0].point(ctx[1], code, sys._getframe(1).f_lasti)
        elif arg in pts:
            ctx[0].point(ctx[1], code, arg)
        else:
            return self.mon.DISABLE
        return None

    def close(self) -> None:
        mon = self.mon
        mon.set_events(self.tool, 0)
        for code in self.codes:
            mon.set_local_events(self.tool, code, 0)
        mon.register_callback(self.tool, mon.events.PY_START, None)
        mon.register_callback(self.tool, self.event, None)
        mon.free_tool_id(self.tool)


def _event_source(index: _CodeIndex) -> _Monitoring | None:
    """sys.monitoring where it exists (3.12+), else None: sys.settrace.  No silent
    fallback on 3.12+, where settrace gives no opcode events and every run would look
    atomic (a RuntimeError instead)."""
    if _MONITORING is None:
        return None
    return _Monitoring(index)


def _sleeping(native_id: int) -> bool | None:
    """Whether the OS thread is asleep (blocked), from ``/proc`` on Linux; None where
    that cannot be read.  A thread that is merely slow because the machine is loaded
    is runnable ("R"), not asleep, and must not be mistaken for a blocked one."""
    try:
        with open(f"/proc/self/task/{native_id}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    try:
        state = stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3]
    except ValueError:
        return None
    return state in (b"S", b"D")


class _Carrier:
    """One reusable OS thread that runs worker bodies, one schedule after another.

    Starting a thread costs more than a whole small schedule, so a search keeps its
    threads; one that never came back from a stopped run is simply not reused."""

    def __init__(self, number: int) -> None:
        self.go = _real_lock()
        self.go.acquire()
        self.job: tuple[_Execution, _Worker] | None = None
        self.busy = False
        self.closed = False
        self.thread = threading.Thread(
            target=self._loop, daemon=True, name=f"explore-worker-{number}"
        )
        self.thread.start()

    def _loop(self) -> None:
        while True:
            self.go.acquire()
            job = self.job
            if job is None or self.closed:
                return
            ex, w = job
            try:
                ex._main(w)
            finally:
                self.job = None
                self.busy = False
                ex._exit()
            if self.closed:
                return

    def submit(self, ex: _Execution, w: _Worker) -> None:
        self.busy = True
        self.job = (ex, w)
        self.go.release()

    def close(self) -> None:
        self.closed = True
        if not self.busy:
            self.job = None
            self.go.release()


class _Pool:
    def __init__(self) -> None:
        self.carriers: list[_Carrier] = []
        self.made = 0

    def take(self, n: int) -> list[_Carrier]:
        for c in self.carriers:
            if c.busy:
                c.closed = True  # stuck in a stopped run: let it end on its own
        self.carriers = [c for c in self.carriers if not c.busy]
        while len(self.carriers) < n:
            self.made += 1
            self.carriers.append(_Carrier(self.made))
        return self.carriers[:n]

    def close(self) -> None:
        for c in self.carriers:
            c.close()
        self.carriers = []


# --------------------------------------------------------------------------- cooperative primitives


class CooperativeLock(_Lockish):
    """``threading.Lock`` that parks a worker thread instead of blocking the scheduler.

    Outside worker threads (and after a run was stopped) it is a plain real lock.
    """

    __slots__ = ("__weakref__", "_real")

    def __init__(self) -> None:
        self._real = _real_lock()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        ctx = _managed()
        if ctx is None:
            return bool(self._real.acquire(blocking, timeout))
        ex, me = ctx
        while True:
            if self._real.acquire(False):
                return True
            if not blocking:
                return False
            if ex.block(me, self, timeout is not None and timeout >= 0):
                return bool(self._real.acquire(False))

    def release(self) -> None:
        self._real.release()

    def locked(self) -> bool:
        return bool(self._real.locked())

    def _free_for(self, ident: int) -> bool:
        return not self._real.locked()

    def _at_fork_reinit(self) -> None:
        self._real = _real_lock()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        state = "locked" if self._real.locked() else "unlocked"
        return f"<{state} CooperativeLock at {id(self):#x}>"


class CooperativeRLock(_Lockish):
    """``threading.RLock`` counterpart of ``CooperativeLock`` (works under ``Condition``)."""

    __slots__ = ("__weakref__", "_count", "_owner", "_real")

    def __init__(self) -> None:
        self._real = _real_lock()
        self._owner: int | None = None
        self._count = 0

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        me_ident = _get_ident()
        if self._owner == me_ident:
            self._count += 1
            return True
        ctx = _managed()
        if ctx is None:
            if not self._real.acquire(blocking, timeout):
                return False
        else:
            ex, me = ctx
            while not self._real.acquire(False):
                if not blocking:
                    return False
                if ex.block(me, self, timeout is not None and timeout >= 0):
                    if not self._real.acquire(False):
                        return False
                    break
        self._owner = me_ident
        self._count = 1
        return True

    def release(self) -> None:
        if self._owner != _get_ident():
            raise RuntimeError("cannot release un-acquired lock")
        self._count -= 1
        if self._count == 0:
            self._owner = None
            self._real.release()

    def _is_owned(self) -> bool:
        return self._owner == _get_ident()

    def _release_save(self) -> tuple[int, int | None]:
        if self._owner != _get_ident():
            raise RuntimeError("cannot release un-acquired lock")
        state = (self._count, self._owner)
        self._count = 0
        self._owner = None
        self._real.release()
        return state

    def _acquire_restore(self, state: tuple[int, int | None]) -> None:
        self.acquire()
        self._count, self._owner = state

    def _free_for(self, ident: int) -> bool:
        return self._owner is None or self._owner == ident

    def _at_fork_reinit(self) -> None:
        self._real = _real_lock()
        self._owner = None
        self._count = 0

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        state = "locked" if self._owner is not None else "unlocked"
        return f"<{state} CooperativeRLock count={self._count} at {id(self):#x}>"


def cooperative_sleep(seconds: float) -> None:
    """``time.sleep`` for worker threads: a free switch to the next thread, no delay."""
    ctx = _managed()
    if ctx is None or seconds < 0:
        _real_sleep(seconds)
        return
    ex, me = ctx
    was_busy = me.busy
    me.busy = True
    try:
        ex.point(me, "sleep", None, yielding=True)
    finally:
        me.busy = was_busy


# --------------------------------------------------------------------------- patching


class _Patches:
    """Swap the lock factories (and unlocked lock instances) for cooperative ones, and
    put every one back afterwards."""

    _FACTORIES: tuple[tuple[object, object], ...] = (
        (_ORIG_THREADING_LOCK, CooperativeLock),
        (_ORIG_ALLOCATE, CooperativeLock),
        (_thread.allocate_lock, CooperativeLock),
        (_ORIG_THREADING_RLOCK, CooperativeRLock),
        (_real_sleep, cooperative_sleep),
    )

    def __init__(self) -> None:
        self._saved: list[tuple[Any, str, object, bool]] = []
        # real lock id -> (real lock, its cooperative twin): one real lock reachable from
        # a module global and an attribute must stay one lock.
        self._twins: dict[int, tuple[object, object]] = {}

    def _twin(self, value: object) -> object | None:
        known = self._twins.get(id(value))
        if known is not None:
            return known[1]
        replacement = _replacement_instance(value)
        if replacement is not None:
            self._twins[id(value)] = (value, replacement)
        return replacement

    def _set(self, target: Any, name: str, value: object, is_dict: bool = False) -> None:
        if is_dict:
            self._saved.append((target, name, target[name], True))
            target[name] = value
        else:
            self._saved.append((target, name, getattr(target, name), False))
            setattr(target, name, value)

    def install(self) -> None:
        self._set(threading, "Lock", CooperativeLock)
        self._set(threading, "RLock", CooperativeRLock)
        if hasattr(threading, "_allocate_lock"):
            self._set(threading, "_allocate_lock", CooperativeLock)
        self._set(time, "sleep", cooperative_sleep)

    def module(self, mod: ModuleType, instances: bool) -> bool:
        """Patch one module's globals; True when a lock *factory* name was replaced.

        Lock *instances* (unlocked ones) are replaced only where ``instances`` is true:
        in the modules that define the explored object's class and those passed
        explicitly, never in the caller's own modules, whose locks other threads use."""
        if mod.__name__ in ("builtins", "threading", "time", "_thread", __name__):
            return False
        factory = False
        namespace = vars(mod)
        for name, value in list(namespace.items()):
            replacement: object | None = None
            for orig, coop in self._FACTORIES:
                if value is orig:
                    replacement = coop
                    factory = True
                    break
            if replacement is None and instances:
                replacement = self._twin(value)
            if replacement is not None:
                self._set(namespace, name, replacement, is_dict=True)
        return factory

    def instance_attrs(self, obj: object) -> None:
        """The explored object's own (unlocked) real locks become cooperative."""
        try:
            namespace = vars(obj)
        except TypeError:
            return
        for name, value in list(namespace.items()):
            replacement = self._twin(value)
            if replacement is not None:
                self._set(namespace, name, replacement, is_dict=True)

    def restore(self) -> None:
        self._twins.clear()
        while self._saved:
            target, name, old, is_dict = self._saved.pop()
            if is_dict:
                target[name] = old
            else:
                setattr(target, name, old)


def _replacement_instance(value: object) -> object | None:
    t = type(value)
    if t is _LOCK_TYPE:
        if not value.locked():  # type: ignore[attr-defined]
            return CooperativeLock()
    elif t is _RLOCK_TYPE:
        owned = getattr(value, "_is_owned", None)
        if owned is not None and not owned() and value.acquire(False):  # type: ignore[attr-defined]
            value.release()  # type: ignore[attr-defined]
            return CooperativeRLock()
    return None


def _modules_of(objs: Sequence[object]) -> list[ModuleType]:
    """The modules that define the given callables/classes (and their bases)."""
    out: list[ModuleType] = []
    seen: set[str] = set()

    def add(name: object) -> None:
        if isinstance(name, str) and name not in seen:
            seen.add(name)
            mod = sys.modules.get(name)
            if mod is not None:
                out.append(mod)

    for obj in objs:
        target = getattr(obj, "__func__", obj)
        owner = getattr(obj, "__self__", None)
        add(getattr(target, "__module__", None))
        if owner is not None and not isinstance(owner, ModuleType):
            for cls in type(owner).__mro__:
                add(cls.__module__)
        if isinstance(obj, type):
            for cls in obj.__mro__:
                add(cls.__module__)
        if isinstance(obj, functools.partial):
            add(getattr(obj.func, "__module__", None))
    return out


# --------------------------------------------------------------------------- the search


class _Session:
    """Options and per-search state shared by all schedules of one search."""

    def __init__(
        self,
        setup: Callable[[], object],
        bodies: Sequence[Callable[[Any], object]],
        *,
        max_steps: int,
        granularity: str,
        trace_filter: Callable[[str], bool] | None,
        names: Sequence[str] | None,
        modules: Sequence[ModuleType],
        stall_timeout: float,
    ) -> None:
        if granularity not in ("opcode", "line"):
            raise ValueError(f"granularity must be 'opcode' or 'line', not {granularity!r}")
        if len(bodies) < 1:
            raise ValueError("at least one thread body is needed")
        self.setup = setup
        self.bodies = list(bodies)
        self.max_steps = max_steps
        self.index = _CodeIndex(trace_filter or default_trace_filter, granularity)
        self.names = tuple(names) if names is not None else tuple(
            f"T{i}" for i in range(len(bodies))
        )
        if len(self.names) != len(self.bodies):
            raise ValueError("one name per thread body is needed")
        self.stall_timeout = stall_timeout
        # (module, replace its lock instances too)
        self.modules: list[tuple[ModuleType, bool]] = [(m, True) for m in modules]
        self.modules += [(m, False) for m in _modules_of([setup, *bodies])]
        self.module_names = {m.__name__ for m, _ in self.modules}
        self.pool = _Pool()
        self.monitor = _event_source(self.index)

    def close(self) -> None:
        self.pool.close()
        if self.monitor is not None:
            self.monitor.close()
            self.monitor = None

    def run_one(self, forced: dict[int, int], deadline: float) -> Run:
        patches = _Patches()
        # No cyclic collection during a run: it would run finalizers of unrelated garbage
        # (say, a generator's finally block) inside a worker, at a point no schedule
        # controls, and add scheduling points of its own.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        patches.install()
        try:
            for mod, instances in self.modules:
                patches.module(mod, instances)
            obj = self.setup()
            # The modules defining the object's class count as code under test when the
            # trace filter says so (not, e.g., a caller's wrapper class).
            found = [
                m for m in _modules_of([type(obj)])
                if self.index.trace_filter(getattr(m, "__file__", None) or "<unknown>")
            ]
            owners = {m.__name__ for m in found}
            todo = [m for m, instances in self.modules if m.__name__ in owners and not instances]
            todo += [m for m in found if m.__name__ not in self.module_names]
            if todo:
                # The object's own modules: from now on patched before setup, instances too.
                names = {m.__name__ for m in todo}
                self.modules = [(m, i) for m, i in self.modules if m.__name__ not in names]
                self.modules += [(m, True) for m in todo]
                self.module_names |= names
                patches.restore()
                patches.install()
                for mod, instances in self.modules:
                    patches.module(mod, instances)
                obj = self.setup()  # so that its locks come from the patched module
            patches.instance_attrs(obj)
            ex = _Execution(obj, self.bodies, forced, self.index, self.max_steps, deadline,
                            self.stall_timeout, self.monitor)
            ex.execute(self.pool)
        finally:
            patches.restore()
            if gc_was_enabled:
                gc.enable()
        decisions = tuple(ex.decisions)
        switches = tuple((d.index, d.chosen) for d in decisions if d.chosen != d.default)
        preemptions = sum(1 for d in decisions if d.preemptive and d.chosen != d.default)
        return Run(
            schedule=Schedule(switches),
            results=ex.results(),
            obj=obj,
            names=self.names,
            preemptions=preemptions,
            steps=ex.steps,
            deadlock=ex.deadlock,
            aborted=ex.aborted,
            diverged=ex.diverged,
            stalls=ex.stalls,
            decisions=decisions,
            _trail=ex.trail,
            _index=self.index,
        )


def runs(
    setup: Callable[[], object],
    bodies: Sequence[Callable[[Any], object]],
    *,
    max_schedules: int = 10_000,
    max_preemptions: int = 2,
    timeout: float = 30.0,
    max_steps: int = 200_000,
    granularity: str = "opcode",
    trace_filter: Callable[[str], bool] | None = None,
    names: Sequence[str] | None = None,
    modules: Sequence[ModuleType] = (),
    stall_timeout: float = 0.5,
    symmetric: bool | None = None,
) -> Generator[Run, None, None]:
    """Every schedule with at most ``max_preemptions`` preemptions, fewest first, each
    once, until ``max_schedules`` or ``timeout``; see the module docstring."""
    session = _Session(
        setup, bodies, max_steps=max_steps, granularity=granularity,
        trace_filter=trace_filter, names=names, modules=modules, stall_timeout=stall_timeout,
    )
    if symmetric is None:
        symmetric = all(b is bodies[0] for b in bodies)
    deadline = time.monotonic() + timeout
    # Work items: (preemptions, sequence number, parent's choices, decision index, thread).
    heap: list[tuple[int, int, tuple[int, ...], int, int]] = [(0, 0, (), -1, -1)]
    seq = 1
    done = 0
    try:
        while heap and done < max_schedules:
            if time.monotonic() > deadline:
                return
            _pre, _seq, parent, j, t = heapq.heappop(heap)
            forced = dict(enumerate(parent[:j])) if j >= 0 else {}
            if j >= 0:
                forced[j] = t
            run = session.run_one(forced, deadline)
            done += 1
            if run.aborted == "time budget exhausted":
                return
            decisions = run.decisions
            chosen = tuple(d.chosen for d in decisions)
            cum = 0
            start = j + 1
            for k, d in enumerate(decisions):
                if k >= start:
                    for alt in d.enabled:
                        if alt == d.chosen:
                            continue
                        if symmetric and alt in d.fresh and (
                            d.chosen in d.fresh or alt != d.fresh[0]
                        ):
                            continue  # unstarted threads with the same body are interchangeable
                        cost = cum + (1 if d.preemptive and alt != d.default else 0)
                        if cost <= max_preemptions:
                            heapq.heappush(heap, (cost, seq, chosen, k, alt))
                            seq += 1
                if d.preemptive and d.chosen != d.default:
                    cum += 1
            run.exhausted = not heap
            remaining = max_schedules - done
            if len(heap) > 2 * remaining + 1024:
                # Items beyond the budget's smallest ones can never run: drop them.
                heap = heapq.nsmallest(max(remaining, 1), heap)
                heapq.heapify(heap)
            yield run
    finally:
        session.close()


def _verdict(check: Callable[[Any, tuple[ThreadResult, ...]], object], run: Run) -> str | None:
    try:
        verdict = check(run.obj, run.results)
    except AssertionError as exc:
        return str(exc) or "the check failed (AssertionError)"
    if verdict is False:
        return "the check returned False"
    if isinstance(verdict, str) and verdict:
        return verdict
    return None


def _classify(
    check: Callable[[Any, tuple[ThreadResult, ...]], object], run: Run
) -> tuple[str, str] | None:
    if run.deadlock:
        blocked = [run.names[r.thread] for r in run.results if r.status == "deadlocked"]
        return "deadlock", "deadlock: " + ", ".join(blocked) + " blocked forever"
    if run.aborted is not None and run.aborted.startswith("more than"):
        return "step_limit", f"the run did not finish: {run.aborted}"
    if run.aborted is not None:
        return None
    why = _verdict(check, run)
    if why is not None:
        return "check", why
    return None


def explore(
    setup: Callable[[], object],
    bodies: Sequence[Callable[[Any], object]],
    check: Callable[[Any, tuple[ThreadResult, ...]], object],
    *,
    max_schedules: int = 10_000,
    max_preemptions: int = 2,
    timeout: float = 30.0,
    max_steps: int = 200_000,
    granularity: str = "opcode",
    trace_filter: Callable[[str], bool] | None = None,
    names: Sequence[str] | None = None,
    modules: Sequence[ModuleType] = (),
    stall_timeout: float = 0.5,
    symmetric: bool | None = None,
) -> ExploreResult:
    """Search for a schedule that breaks ``check``; see the module docstring."""
    started = time.monotonic()
    count = 0
    exhausted = False
    options: dict[str, Any] = {
        "max_steps": max_steps, "granularity": granularity, "trace_filter": trace_filter,
        "names": names, "modules": modules, "stall_timeout": stall_timeout,
    }
    search = runs(setup, bodies, max_schedules=max_schedules,
                  max_preemptions=max_preemptions, timeout=timeout, symmetric=symmetric,
                  **options)
    found: tuple[str, str] | None = None
    run: Run | None = None
    try:
        for run in search:
            count += 1
            exhausted = run.exhausted
            found = _classify(check, run)
            if found is not None:
                break
    finally:
        search.close()  # its threads and event hooks go before the replay starts its own
    if found is not None and run is not None:
        kind, message = found
        again = replay(setup, bodies, run.schedule, **options)
        again_found = _classify(check, again)
        reproduced = again_found is not None and again_found[0] == kind
        shown = again if reproduced else run
        return ExploreResult(
            violated=True,
            kind=kind,
            message=message,
            schedule=run.schedule,
            trace_text=shown.trace_text() + f"\nviolation ({kind}): {message}",
            schedules_run=count,
            exhausted=False,
            elapsed=time.monotonic() - started,
            results=run.results,
            reproduced=reproduced,
            summary=run.summary(),
        )
    return ExploreResult(
        violated=False, kind="", message="", schedule=None, trace_text="",
        schedules_run=count, exhausted=exhausted, elapsed=time.monotonic() - started,
    )


def replay(
    setup: Callable[[], object],
    bodies: Sequence[Callable[[Any], object]],
    schedule: Schedule | str,
    *,
    max_steps: int = 200_000,
    granularity: str = "opcode",
    trace_filter: Callable[[str], bool] | None = None,
    names: Sequence[str] | None = None,
    modules: Sequence[ModuleType] = (),
    stall_timeout: float = 0.5,
    timeout: float = 30.0,
) -> Run:
    """Run exactly ``schedule`` once more (same code, same Python version)."""
    if isinstance(schedule, str):
        schedule = Schedule.parse(schedule)
    session = _Session(
        setup, bodies, max_steps=max_steps, granularity=granularity,
        trace_filter=trace_filter, names=names, modules=modules, stall_timeout=stall_timeout,
    )
    try:
        run = session.run_one(dict(schedule.switches), time.monotonic() + timeout)
    finally:
        session.close()
    if run.schedule != schedule:
        run.diverged = True
    return run


# --------------------------------------------------------------------------- traces


def _shown(value: object, depth: int = 0) -> str:
    """A value as the contract's reports write it: enum members as ``Outcome.ok``, strings in
    double quotes, ``true``/``false``/``none``; an object without a readable form as
    ``<Name object>`` (no memory address, which says nothing and changes every run)."""
    if value is None or isinstance(value, bool):
        return {None: "none", True: "true", False: "false"}[value]
    if isinstance(value, enum.Enum):
        try:
            return f"{type(value).__name__}.{value.name}"
        except Exception:  # a hostile enum: fall through to its repr
            pass
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)) and depth < 3:
        return "[" + ", ".join(_shown(v, depth + 1) for v in value[:20]) + \
            (", ...]" if len(value) > 20 else "]")
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not break the report
        return f"<{type(value).__name__} object>"
    if text.startswith("<") and " at 0x" in text:
        return f"<{type(value).__name__} object>"
    return text


def _short(value: object, limit: int = 60) -> str:
    text = _shown(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_OPS_ROW = re.compile(r"   \[[A-Z0-9_ .]*\]$", re.MULTILINE)
_OPS_SWITCH = re.compile(r"(preempts .+?) before [A-Z][A-Z0-9_]* at ")


def plain(text: str) -> str:
    """A trace or a schedule without the bytecode instructions: the ``[LOAD_ATTR CALL]`` at
    the end of each row and the instruction a thread was preempted before.  Rows and
    switches keep their file, line and source text, which is what a person follows; the
    instructions are detail for whoever asks for it (``--verbose``)."""
    return _OPS_SWITCH.sub(r"\1 at ", _OPS_ROW.sub("", text))


def _switch_reason(
    last: tuple[int, object, object], names: tuple[str, ...], index: _CodeIndex | None
) -> str:
    """Why the thread whose last trail entry is ``last`` lost the turn."""
    t, where, arg = last
    if isinstance(where, CodeType) and index is not None and isinstance(arg, int):
        file, line, op = index.info(where, arg)
        return f"preempts {names[t]} before {op} at {os.path.basename(file)}:{line}"
    if where == "block":
        return f"{names[t]} waits for {arg}"
    if where == "sleep":
        return f"{names[t]} sleeps"
    if where == "finish":
        return f"{names[t]} {arg}"
    return f"{names[t]} stopped"


class _Rows:
    """Collects trace rows, folding consecutive steps on one source line into one row."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.rows: list[str] = []
        self._key: tuple[int, str, int] | None = None
        self._ops: list[str] = []

    def flush(self) -> None:
        if self._key is not None:
            ops = _dedupe(self._ops)
            if len(ops) > 8:
                ops = [*ops[:7], "..."]
            self.rows[-1] += "   [" + " ".join(ops) + "]"
        self._key = None
        self._ops = []

    def step(self, t: int, file: str, line: int, op: str) -> None:
        key = (t, file, line)
        if key != self._key:
            self.flush()
            src = linecache.getline(file, line).strip()
            self.rows.append(f"  {self.names[t]:<4} {os.path.basename(file)}:{line:<5} {src}")
            self._key = key
        self._ops.append(op)

    def note(self, text: str) -> None:
        self.flush()
        self.rows.append(text)


def _format_trace(run: Run, max_lines: int) -> str:
    index = run._index
    names = run.names
    notes = ""
    if run.stalls:
        notes += f", {run.stalls} stall(s): may not replay exactly"
    if run.diverged:
        notes += ", diverged from the requested schedule"
    head = [
        f"schedule {run.schedule}: {run.preemptions} preemption(s), {run.steps} steps, "
        f"{len(names)} threads{notes}"
    ]
    head += [f"  {names[r.thread]}: {r.describe()}" for r in run.results]
    head.append("interleaving:")
    segments: list[tuple[int, list[tuple[int, object, object]]]] = []
    for entry in run._trail:
        if segments and segments[-1][0] == entry[0]:
            segments[-1][1].append(entry)
        else:
            segments.append((entry[0], [entry]))
    out = _Rows(names)
    pending: dict[int, tuple[str, int, str]] = {}
    for si, (t, entries) in enumerate(segments):
        resumed = pending.pop(t, None)
        if resumed is not None:
            out.step(t, *resumed)
        last = entries[-1]
        paused = si + 1 < len(segments) and isinstance(last[1], CodeType)
        for _t, where, arg in entries[:-1] if paused else entries:
            if isinstance(where, CodeType) and index is not None and isinstance(arg, int):
                out.step(t, *index.info(where, arg))
            elif where == "finish":
                out.note(f"  {names[t]:<4} {arg}")
            elif where == "block":
                out.note(f"  {names[t]:<4} waits for {arg} (held by another thread)")
            elif where == "sleep":
                out.note(f"  {names[t]:<4} time.sleep(): yields")
        if si + 1 < len(segments):
            nxt = names[segments[si + 1][0]]
            if paused and index is not None and isinstance(last[2], int):
                assert isinstance(last[1], CodeType)
                pending[t] = index.info(last[1], last[2])
            out.note(f"       -- switch: {_switch_reason(last, names, index)}; {nxt} runs")
    out.flush()
    if run.deadlock:
        out.note("       -- deadlock: no thread can run")
    elif run.aborted:
        out.note(f"       -- stopped: {run.aborted}")
    rows = out.rows
    if len(rows) > max_lines:
        keep = max_lines // 2
        rows = [*rows[:keep], f"  ... {len(rows) - max_lines} rows left out ...",
                *rows[-(max_lines - keep):]]
    return "\n".join(head + rows)


def _dedupe(ops: list[str]) -> list[str]:
    out: list[str] = []
    for op in ops:
        if not out or out[-1] != op:
            out.append(op)
    return out
