"""Outcomes are decided by deterministic resource limits, never by the clock.

Every solver call is bounded by resource units that count work (Z3's ``rlimit``, cvc5's
``rlimit-per``), so the same input gives the same answer on an idle and on a loaded
machine.  The wall clock is only a safety net against a hang, and when it fires the run
says so (``OperationalTimeout``, exit 75) instead of reporting a speed-dependent answer.
These tests pin both halves: a resource limit gives ``unknown`` whatever the speed, and a
clock that fires is never turned into an answer.  They choose sizes so that a slower
machine only makes the expected outcome more certain.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
import z3

from derivative import api, cli
from derivative._errors import ExitCode, OperationalTimeout
from derivative.solver import CheckOptions, CheckResult, check
from derivative.solver._z3util import fresh_context, make_solver

NONLINEAR = Path(__file__).resolve().parents[1] / "golden" / "check" / "nonlinear_unknown"


def _pigeonhole(s: z3.Solver, ctx: z3.Context, n: int) -> None:
    """``n`` pigeons in ``n - 1`` holes: unsat, and hard for a SAT solver."""
    p = [[z3.Bool(f"p{i}_{j}", ctx) for j in range(n - 1)] for i in range(n)]
    for row in p:
        s.add(z3.Or(row))
    for j in range(n - 1):
        for i in range(n):
            for k in range(i + 1, n):
                s.add(z3.Or(z3.Not(p[i][j]), z3.Not(p[k][j])))


@pytest.mark.parametrize("simple", [True, False])
def test_a_resource_limit_is_an_unknown_not_a_timeout(simple: bool) -> None:
    with fresh_context() as env:
        s = make_solver(1_000, 600_000, simple)  # the clock is ten minutes away
        _pigeonhole(s, env.ctx, 9)
        assert s.check() == z3.unknown


@pytest.mark.parametrize("simple", [True, False])
def test_the_wall_clock_safety_net_raises_instead_of_answering(simple: bool) -> None:
    # Z3's plain solver says "canceled" for both limits: the clock must still be told apart.
    with fresh_context() as env:
        s = make_solver(0, 50, simple)  # no resource limit, a 50 ms clock
        _pigeonhole(s, env.ctx, 11)
        with pytest.raises(OperationalTimeout, match=r"wall-clock safety limit of 0\.05 s"):
            s.check()


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_check_reports_a_resource_limit_as_unknown_and_the_clock_as_exit_75(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(NONLINEAR)
    code, out, _ = _cli("check", "spec.req")
    assert code == ExitCode.UNKNOWN
    assert "resource limit reached" in out
    code, out, err = _cli("check", "spec.req", "--timeout", "0.001")
    assert code == ExitCode.OPERATIONAL_TIMEOUT == 75
    assert out == ""
    assert err.startswith("error: operational timeout: a Z3 call was stopped by its wall-clock")


def _many_cores() -> str:
    # Three components of five pairwise-conflicting requirements: 10 cores each.
    lines = ["spec s version 1"]
    for name in "abc":
        lines.append(f"param {name}: int")
        lines += [f"requirement {name.upper()}{k}: {name} == {k}" for k in range(1, 6)]
    return "\n".join(lines) + "\n"


def _all_cores(**options: object) -> CheckResult:
    loaded = api.parse_text(_many_cores(), "spec.req")
    opts = CheckOptions(all_cores=True, **options)  # type: ignore[arg-type]
    return check(loaded.contract, loaded.types, opts)


def test_the_enumeration_of_cores_stops_at_a_deterministic_bound() -> None:
    full = _all_cores()
    assert len(full.cores) == 30
    assert not [u for u in full.unknowns if "enumeration of cores" in u.reason]
    # A small budget of resource units cuts every component's enumeration at the same
    # place on every machine, and says so.
    cut = [_all_cores(enumeration_work=2_000) for _ in range(2)]
    assert [c.ids for c in cut[0].cores] == [c.ids for c in cut[1].cores]
    assert 0 < len(cut[0].cores) < 30
    notes = [u.reason for u in cut[0].unknowns if "enumeration of cores" in u.reason]
    assert notes and all(
        "2,000 Z3 resource units" in n and "raise --enumeration-work" in n for n in notes
    )


def test_the_enumeration_clock_is_only_a_safety_net() -> None:
    with pytest.raises(OperationalTimeout, match="enumeration of cores"):
        _all_cores(enumeration_seconds=1e-9)


# --------------------------------------------------------------------------- interleavings

TOKEN_STORE = Path(__file__).resolve().parents[1] / "corpus" / "token_store_race"


def _token_store_run(options: object) -> object:
    from derivative.forge.testing import Engine, InProcessCaller, load_target
    from derivative.solver import clear_cache

    clear_cache()
    info = api.parse_text((TOKEN_STORE / "spec.req").read_text(encoding="utf-8")).types
    mod = load_target(str(TOKEN_STORE / "correct.py"))
    return Engine(info, InProcessCaller.for_contract(mod, info), options).run()  # type: ignore[arg-type]


def test_the_number_of_interleavings_explored_is_decided_by_the_schedule_bound() -> None:
    from hypothesis import settings

    from derivative.forge.testing import EngineOptions

    # derandomised, as ``derivative run`` is by default: then every count is the same
    options = EngineOptions(
        examples=5, sequences=2, steps=4, interleavings=40, settings=settings(derandomize=True)
    )
    counts = []
    for _ in range(2):
        evidence = _token_store_run(options)
        assert evidence.status == "passed"  # type: ignore[attr-defined]
        counts.append([(o.id, o.inputs) for o in evidence.obligations])  # type: ignore[attr-defined]
    assert counts[0] == counts[1]


def test_an_exploration_stopped_by_the_clock_is_an_operational_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from derivative.forge.testing import EngineOptions, _inprocess

    monkeypatch.setattr(_inprocess, "EXPLORE_SAFETY_SECONDS", 1e-9)
    with pytest.raises(OperationalTimeout, match="exploration of interleavings of TokenStore"):
        _token_store_run(EngineOptions(examples=5, sequences=2, steps=4, interleavings=40))


def test_a_sandboxed_exploration_stopped_by_the_clock_is_an_operational_timeout() -> None:
    from types import SimpleNamespace

    from derivative.forge.run import SandboxCaller
    from derivative.forge.sandbox._channel import ExploreBatch, ExploredRun, WireOutcome
    from derivative.forge.sandbox._sandbox import CallResult

    one = ExploredRun("[]", (), (WireOutcome(True, 1),), "", False)

    class ClockCut:
        limits = SimpleNamespace(explore_timeout=0.0)  # already over when the answer comes

        def explore(self, *args: object, **kwargs: object) -> CallResult:
            return CallResult("returned", value=ExploreBatch((one,), False))

        def explore_close(self) -> None:
            pass

    caller = SandboxCaller(ClockCut())
    with pytest.raises(OperationalTimeout, match="after 1 of at most 10 schedules"):
        list(caller.explore("S", [], [("take", [])], 10, lambda run: False))
    # the same answer within the budget is the end of the search space: no error
    ClockCut.limits = SimpleNamespace(explore_timeout=300.0)
    assert len(list(caller.explore("S", [], [("take", [])], 10, lambda run: False))) == 1
