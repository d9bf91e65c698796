"""What isolation costs a property test: sandboxed Hypothesis runs against in-process ones.

Run as ``python benchmarks/sandbox_overhead.py [--examples 1000] [--repeat 3]
[--starts 10] [--calls 5000] [--backends process,docker]``.  Not run in CI.

Measured in one run, because these machines are noisy (docs/decisions.md):

- **the property test**: a ``max_examples``-example Hypothesis test of ``clamp(x, lo, hi)``
  (the result lies in ``[lo, hi]``, equals ``x`` inside the range and the nearer bound
  outside), once calling the function in this process and once per backend through a
  sandbox that is already started (one sandbox for the whole test, as a build uses it).
  Every variant draws the same examples (same seed, no database, no shrinking); the
  variants take turns in ``--repeat`` rounds (a slow spell of the machine hits them all)
  and the figure is each one's best wall time.  The ratio sandboxed / in-process is
  the goal's figure: process <= 1.5x, docker <= 2.0x;
- **the replay** (``forge/run/_replay.py``): a passing ``derivative run`` makes a sample of
  its calls again in a fresh sandbox staged elsewhere, started on another thread while the
  run goes on (``forge/run/_early.py``); each sandboxed round does exactly that, and what the
  replay adds after the property test (its calls, the close, any wait for its start) is
  printed and counted in the goal's ratio ("replay included");
- **the runtime guard**: the same property test through a process sandbox *without* the
  guard (the ``permissive`` set-up), so the ratio of the two is the guard's cost; and the
  round trip of each, per call (the audit hook runs only on audited events, which a pure
  function raises none of; the judge/runner relay is in both);
- **candidate coverage** (issue 13): the same property test through a process sandbox
  that measures the candidate's lines and arcs (``coverage=True``, guard on, as ``derivative
  run`` does by default); its ratio to the plain process variant, on the property test
  and per round trip, is the cost of coverage per call;
- **colocation** (``Limits.colocate``, on by default): the judging thread and the sandbox's
  processes share one CPU while a session is open; run with ``--no-colocate`` to see the
  cost of waking processes on another, idle CPU;
- **calls/s across the channel**: ``--calls`` back-to-back calls of the same function
  without Hypothesis, i.e. the round trip alone (host -> judge -> runner and back);
- **start time**: the median of ``--starts`` sandbox starts per backend, from
  ``open_sandbox`` to a loaded candidate (set-up, isolation checks and the import), and the
  median time to close one;
- **the machine's wake-up latency**: a one-byte pipe round trip to a plain child process,
  back to back and after 1.5 ms of host work (about what Hypothesis spends per example).
  On a virtual machine waking a sleeping process can take milliseconds; every sandboxed
  call pays it, so it explains a ratio that moves from run to run.

Wall time, not CPU time, because the sandboxed work happens in another process.
``figures(quick)`` gives ``benchmarks/run_all.py`` one row per backend (Docker "not
measured" when the machine has no engine or no image).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from benchmarks._rows import TableRow, not_measured, table_row
from derivative._errors import SandboxUnavailable
from derivative.forge.sandbox._sandbox import Launcher, Limits, Sandbox, open_sandbox

CANDIDATE = '''\
def clamp(x: int, lo: int, hi: int) -> int:
    """x limited to [lo, hi] (lo <= hi)."""
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x
'''
CONTRACT = "0" * 64
SEED = 20240601
GOALS = {"process": 1.5, "docker": 2.0}
UNGUARDED = "unguarded"
COVERED = "coverage"
LIMITS = [Limits()]
"""The sandboxes' limits (``--no-colocate`` replaces it)."""
VALUES = st.integers(min_value=-(10**9), max_value=10**9)

Call = Callable[[int, int, int], object]


def judge(result: object, x: int, lo: int, hi: int) -> None:
    """The property, on the host: what every variant checks for every example."""
    assert type(result) is int, result
    assert lo <= result <= hi, (x, lo, hi, result)
    if lo <= x <= hi:
        assert result == x
    else:
        assert result == (lo if x < lo else hi)


def property_test(call: Call, examples: int) -> Callable[[], None]:
    """A fresh Hypothesis test of ``clamp`` through ``call`` (same examples every time)."""

    @seed(SEED)
    @settings(max_examples=examples, deadline=None, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(VALUES, VALUES, VALUES)
    def test(x: int, a: int, b: int) -> None:
        lo, hi = min(a, b), max(a, b)
        judge(call(x, lo, hi), x, lo, hi)

    return test


def timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def round_trips(call: Call, n: int) -> float:
    """Seconds for ``n`` back-to-back calls (no Hypothesis: the channel alone)."""
    started = time.perf_counter()
    for i in range(n):
        call(i, -5, 5)
    return time.perf_counter() - started


ECHO = (
    "import os\n"
    "while True:\n"
    "    b = os.read(0, 1)\n"
    "    if not b:\n"
    "        break\n"
    "    os.write(1, b)\n"
)


def wake_up_latency(gap: float = 0.0015, rounds: int = 300) -> tuple[float, float]:
    """Median one-byte pipe round trip to a plain child, back to back and after ``gap``
    seconds of host work: how long this machine takes to wake a sleeping process, which
    no sandbox can do anything about (it shows up in every ratio below)."""
    child = subprocess.Popen([sys.executable, "-I", "-S", "-c", ECHO],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    wfd, rfd = child.stdin.fileno(), child.stdout.fileno()
    medians = []
    for pause in (0.0, gap):
        samples = []
        for _ in range(rounds):
            end = time.perf_counter() + pause
            while time.perf_counter() < end:
                pass
            began = time.perf_counter()
            os.write(wfd, b"x")
            os.read(rfd, 1)
            samples.append(time.perf_counter() - began)
        medians.append(statistics.median(samples))
    child.stdin.close()
    child.wait(5)
    child.stdout.close()
    return medians[0], medians[1]


def in_process(path: Path) -> Call:
    spec = importlib.util.spec_from_file_location("clamp_candidate", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function: Call = module.clamp
    return function


def through(sb: Sandbox) -> Call:
    def call(x: int, lo: int, hi: int) -> object:
        result = sb.call("clamp", [x, lo, hi])
        if not result.ok:
            raise AssertionError(f"{result.status}: {result.detail}")
        return result.value

    return call


def launcher_for(name: str) -> Launcher:
    if name == "process":
        from derivative.forge.sandbox._process import ProcessLauncher

        return ProcessLauncher()
    from derivative.forge.sandbox._docker import DockerLauncher

    return DockerLauncher.connect()


def with_replay(call: Call, launcher: Launcher, path: Path, examples: int,
                spare: frozenset[int]) -> tuple[float, float]:
    """(seconds for the property test, seconds it adds after) when a passing run's replay
    is done as ``derivative run`` does it: its sandbox started on another thread at the
    run's beginning (``forge/run/_early.py``), then the sample's calls and the close."""
    import dataclasses

    from derivative.forge.run._early import EarlySandbox
    from derivative.forge.run._replay import REPLAY_CALLS

    limits = dataclasses.replace(LIMITS[0], colocate=False)
    began = time.perf_counter()
    early = EarlySandbox(lambda: open_sandbox(path, contract_sha256=CONTRACT,
                                              launcher=launcher, limits=limits),
                         start=False)
    early.begin(spare)
    property_test(call, examples)()
    ran = time.perf_counter()
    sb = early.take()
    try:
        for i in range(REPLAY_CALLS):
            assert sb.call("clamp", [i, -5, 5]).ok
    finally:
        sb.close()
    return ran - began, time.perf_counter() - ran


def start_times(launcher: Launcher, path: Path, starts: int) -> tuple[float, float]:
    """Median seconds to start (to a loaded candidate) and to close one sandbox."""
    opened: list[float] = []
    closed: list[float] = []
    for _ in range(starts):
        began = time.perf_counter()
        sb = open_sandbox(path, contract_sha256=CONTRACT, launcher=launcher, limits=LIMITS[0])
        load = sb.start()
        opened.append(time.perf_counter() - began)
        if not load.ok:
            sb.close()
            raise SystemExit(f"the candidate did not load: {load.detail}")
        began = time.perf_counter()
        sb.close()
        closed.append(time.perf_counter() - began)
    return statistics.median(opened), statistics.median(closed)


@dataclass
class Overhead:
    """What one run measured (seconds unless named otherwise)."""

    examples: int
    repeat: int
    calls: int
    starts: int
    unavailable: dict[str, str] = field(default_factory=dict)
    """backend -> why this machine cannot give it"""
    best: dict[str, float] = field(default_factory=dict)
    """variant -> its best property test (a backend's without its replay)"""
    replays: dict[str, float] = field(default_factory=dict)
    """backend -> what the replay added after the property test, in that best round"""
    rates: dict[str, float] = field(default_factory=dict)
    """sandboxed variant -> back-to-back calls per second"""
    start_close: dict[str, tuple[float, float]] = field(default_factory=dict)
    wake: tuple[float, float] = (0.0, 0.0)

    @property
    def backends(self) -> list[str]:
        return [name for name in self.replays]

    def ratio(self, backend: str) -> float:
        """Sandboxed (replay included) / in-process: the goal's figure."""
        return (self.best[backend] + self.replays[backend]) / self.best["in-process"]


@dataclass
class Variants:
    """The calls to compare, and the launchers and open sandboxes behind them."""

    calls: dict[str, Call]
    launchers: dict[str, Launcher] = field(default_factory=dict)
    sandboxes: dict[str, Sandbox] = field(default_factory=dict)


def open_variants(stack: contextlib.ExitStack, path: Path, backends: list[str],
                  out: Overhead) -> Variants:
    """In-process, one started sandbox per available backend, and the unguarded one."""
    v = Variants({"in-process": in_process(path)})
    for name in backends:
        try:
            v.launchers[name] = launcher_for(name)
        except SandboxUnavailable as exc:
            out.unavailable[name] = str(exc)
            continue
        sb = stack.enter_context(open_sandbox(path, contract_sha256=CONTRACT,
                                              launcher=v.launchers[name], limits=LIMITS[0]))
        v.calls[name] = through(sb)
        v.sandboxes[name] = sb
    if "process" in v.launchers:
        bare = stack.enter_context(open_sandbox(
            path, contract_sha256=CONTRACT, launcher=v.launchers["process"],
            limits=LIMITS[0], guard=False))
        v.calls[UNGUARDED] = through(bare)
        v.sandboxes[UNGUARDED] = bare
        covered = stack.enter_context(open_sandbox(
            path, contract_sha256=CONTRACT, launcher=v.launchers["process"],
            limits=LIMITS[0], coverage=True))
        v.calls[COVERED] = through(covered)
        v.sandboxes[COVERED] = covered
    return v


def run_rounds(v: Variants, path: Path, out: Overhead) -> None:
    """The property test of every variant, in interleaved rounds (a slow spell of the
    machine hits them all); each one's best, a backend's with its replay."""
    for call in v.calls.values():
        property_test(call, 20)()  # warm Hypothesis, the import caches and the channel
    out.best = {name: float("inf") for name in v.calls}
    out.replays = {name: float("inf") for name in v.launchers}
    for _ in range(out.repeat):
        for name, call in v.calls.items():
            if name in v.launchers:
                ran, tail = with_replay(call, v.launchers[name], path, out.examples,
                                        v.sandboxes[name].spare_cpus())
                if ran + tail < out.best[name] + out.replays[name]:
                    out.best[name], out.replays[name] = ran, tail
            else:
                out.best[name] = min(out.best[name], timed(property_test(call, out.examples)))


def measure(examples: int, repeat: int, starts: int, calls: int, backends: list[str],
            colocate: bool = True) -> Overhead:
    """Every figure of the module docstring, on the backends this machine can give."""
    LIMITS[0] = Limits(colocate=colocate)
    out = Overhead(examples, repeat, calls, starts)
    folder = Path(tempfile.mkdtemp(prefix="derivative-bench-"))
    try:
        path = folder / "clamp_candidate.py"
        path.write_text(CANDIDATE, encoding="utf-8")
        with contextlib.ExitStack() as stack:
            v = open_variants(stack, path, backends, out)
            run_rounds(v, path, out)
            out.rates = {name: calls / round_trips(v.calls[name], calls)
                         for name in v.sandboxes}
            for sb in v.sandboxes.values():
                assert not sb.tainted and sb.restarts == 0
                assert not sb.refusals
        out.start_close = {name: start_times(launcher, path, starts)
                           for name, launcher in v.launchers.items()}
        out.wake = wake_up_latency()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def report(o: Overhead) -> None:
    """The printout of one run (the command line's output)."""
    for name, why in o.unavailable.items():
        print(f"{name}: unavailable: {why}")
    baseline = o.best["in-process"]
    print(f"{o.examples}-example Hypothesis test of clamp, best of {o.repeat} "
          "interleaved rounds (wall time); the goal's ratio includes the replay")
    print(f"  in-process  {baseline:8.3f} s")
    for name in o.backends:
        ratio = o.ratio(name)
        verdict = "meets" if ratio <= GOALS[name] else "MISSES"
        print(f"  {name:<10}  {o.best[name]:8.3f} s + replay {o.replays[name]:6.3f} s   ratio "
              f"{ratio:5.2f}x  (goal <= {GOALS[name]:.1f}x: {verdict}; without the replay "
              f"{o.best[name] / baseline:5.2f}x)")
    if UNGUARDED in o.best:
        print(f"  the runtime guard: process with it / without it  {guard_cost(o)}")
    if COVERED in o.best:
        print(f"  candidate coverage: process with it / without it  {coverage_cost(o)}")
    print(f"channel round trips ({o.calls} calls) and sandbox start-up "
          f"(medians of {o.starts})")
    for name, (opened, closed) in o.start_close.items():
        print(f"  {name:<10}  {o.rates[name]:8,.0f} calls/s   start {opened * 1000:6.1f} ms   "
              f"close {closed * 1000:6.1f} ms")
    if UNGUARDED in o.rates:
        print(f"  {UNGUARDED:<10}  {o.rates[UNGUARDED]:8,.0f} calls/s   (the process backend "
              "without the guard)")
    busy, idle = o.wake
    print(f"this machine: pipe round trip to a plain child {busy * 1e6:.0f} us back to back, "
          f"{idle * 1e6:.0f} us after 1.5 ms of host work (median)")


def guard_cost(o: Overhead) -> str:
    """The runtime guard's cost: on the property test, and per round trip."""
    return (f"{o.best['process'] / o.best[UNGUARDED]:5.2f}x on the property test, "
            f"{o.rates[UNGUARDED] / o.rates['process']:5.2f}x per round trip "
            f"({1e6 / o.rates['process'] - 1e6 / o.rates[UNGUARDED]:+.1f} us a call)")


def coverage_cost(o: Overhead) -> str:
    """Measuring the candidate's lines and arcs (``Limits`` alike, guard on in both): on
    the property test, and per round trip."""
    return (f"{o.best[COVERED] / o.best['process']:5.2f}x on the property test, "
            f"{o.rates['process'] / o.rates[COVERED]:5.2f}x per round trip "
            f"({1e6 / o.rates[COVERED] - 1e6 / o.rates['process']:+.1f} us a call)")


def _backend_row(o: Overhead, name: str) -> TableRow:
    """One backend's goal row; "not measured" (met unknown) when the machine lacks it."""
    baseline = f"in-process {o.best['in-process']:.3f} s"
    figure = f"{o.examples}-example Hypothesis test, {name} sandbox (replay included)"
    goal = f"<= {GOALS[name]}"
    if name not in o.replays:
        why = o.unavailable.get(name, "not asked for")
        return table_row("sandbox_overhead", figure, baseline=baseline,
                         ratio=not_measured(why), goal=goal, met=None, detail=why)
    opened, _ = o.start_close[name]
    detail = (f"{o.best[name]:.3f} s + replay {o.replays[name]:.3f} s; without the replay "
              f"{o.best[name] / o.best['in-process']:.2f}x; {o.rates[name]:,.0f} calls/s; "
              f"start {opened * 1000:.0f} ms; wake-up latency {o.wake[1] * 1e6:.0f} us; "
              f"best of {o.repeat}")
    if name == "process" and UNGUARDED in o.best:
        detail += f"; the runtime guard: {' '.join(guard_cost(o).split())}"
    if name == "process" and COVERED in o.best:
        detail += f"; candidate coverage: {' '.join(coverage_cost(o).split())}"
    return table_row("sandbox_overhead", figure, baseline=baseline, ratio=o.ratio(name),
                     goal=goal, met=o.ratio(name) <= GOALS[name], detail=detail)


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s rows, one per backend (quick: 500 examples, best of 3, 3 starts, 1,000
    calls; full: the defaults, 1,000 examples, best of 3, 10 starts, 5,000 calls)."""
    examples, starts, calls = (500, 3, 1000) if quick else (1000, 10, 5000)
    o = measure(examples, 3, starts, calls, list(GOALS))
    return [_backend_row(o, name) for name in GOALS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--backends", default="process,docker")
    parser.add_argument("--no-colocate", action="store_true",
                        help="do not keep the host thread and the sandbox on one CPU")
    args = parser.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    report(measure(args.examples, args.repeat, args.starts, args.calls, backends,
                   colocate=not args.no_colocate))
    return 0


if __name__ == "__main__":
    sys.exit(main())
