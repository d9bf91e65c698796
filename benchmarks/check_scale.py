"""``derivative check`` end to end against raw z3py on a configuration-limits sheet.

Run as ``python benchmarks/check_scale.py [--sizes 1000,10000] [--repeat 3]``.

For each size N it writes a spec with N requirements: difference constraints
``p_a - p_b <= c`` over about N/4 integer params (each ranged ``int in 0..1000``,
every fourth requirement phrased ``shall be at most``), all satisfied by a hidden
assignment, plus a planted contradiction of 5 members: a negative cycle
``q1 - q2 <= -1, ..., q5 - q1 <= -1`` over 5 params of their own, spread through
the file.  That cycle is the only minimal core (every other constraint holds at the
hidden assignment, and no range can close the open chain), so both sides must name
exactly those 5 requirements.

Measured in this one process:

- **derivative**: ``derivative check SPEC --json --certificate FILE`` through the
  CLI's ``main`` (parse, type check, encoding, solving, deletion-minimal core with
  its re-check, the certificate with its Farkas multipliers and both independent
  re-checks by z3 and cvc5 in fresh processes, the JSON report);
- **z3py**: building the same constraints (ranges and requirements, each behind an
  assumption literal), ``check`` and ``unsat_core`` with ``core.minimize`` on.

It prints (derivative) / (z3py) (goal: <= 2.0 at 10,000) by wall clock, the figure
that counts the solver processes the certificate starts, and by CPU time (this
process plus its finished children), with the breakdown of where derivative's time
goes: parse, type check, solve (encode + check + everything else in ``check``),
minimise (``Question.minimal_core``), certificate (with the wall-clock time of its
re-checks in fresh solver processes, which run while the rest of the certificate is
computed), and the rest (CLI, JSON rendering, writing the file).

**Whole process** (``--whole``, and in ``figures``): the same sheet as a user runs it,
fresh processes interleaved in one loop, medians (``benchmarks/_whole.py``):
``derivative check SPEC --json --certificate FILE`` (both re-checks included) against a
z3py script that builds the same constraints, checks and extracts a minimised core
(goal <= 2.0), and against z3 fed the same constraints as SMT-LIB text
(``Solver.from_string``; goal <= 2.5); and ``derivative parse SPEC --json`` against the
z3py script (goal <= 1.0).

``figures(quick)`` gives ``benchmarks/run_all.py`` the goal's rows (10,000 requirements).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import _whole
from benchmarks._rows import TableRow, table_row

HI = 1000
"""Every param is declared ``int in 0..HI`` (and the hidden assignment lies there).

Limits of this size are what a configuration sheet holds (minutes, counts).  With
values up to 100,000 and tight slacks, Z3 5.4's default arithmetic solver itself
needed minutes from about 6,000 rows on (the difference-logic solver,
``smt.arith.solver=1``, did 10,000 in 0.7 s), which would measure that, not us."""


@dataclass(frozen=True)
class Sheet:
    """A generated limits sheet: the spec text and the same constraints as data."""

    text: str
    nparams: int
    rows: tuple[tuple[str, str, str, int], ...]
    """(id, a, b, c) for the requirement ``a - b <= c`` (param names)."""
    planted: frozenset[str]


def make_sheet(n: int, seed: int = 7) -> Sheet:
    """``n`` requirements, the last 5 of which (spread through the file) form the cycle."""
    rnd = random.Random(seed)
    nparams = max(10, n // 4)
    hidden = [rnd.randrange(0, HI + 1) for _ in range(nparams)]
    names = [f"limit_{i}" for i in range(nparams)] + [f"q{j}" for j in range(1, 6)]
    body: list[tuple[str, str, int]] = []
    for _ in range(n - 5):
        a = rnd.randrange(nparams)
        b = rnd.randrange(nparams - 1)
        if b >= a:
            b += 1
        slack = rnd.randrange(0, 500)
        body.append((names[a], names[b], hidden[a] - hidden[b] + slack))
    cycle = [(f"q{j}", f"q{j % 5 + 1}", -1) for j in range(1, 6)]
    # Spread the cycle's members through the sheet, as a real conflict would be.
    slots = sorted(rnd.sample(range(n), 5))
    order: list[tuple[str, str, int]] = []
    planted_at: set[int] = set()
    it_body, it_cycle = iter(body), iter(cycle)
    for k in range(n):
        if k in slots:
            order.append(next(it_cycle))
            planted_at.add(k)
        else:
            order.append(next(it_body))
    lines = [f"spec limits{n} version 1", '"A generated configuration-limits sheet."', ""]
    lines += [f"param {p}: int in 0..{HI}" for p in names]
    lines.append("")
    rows: list[tuple[str, str, str, int]] = []
    for k, (pa, pb, c) in enumerate(order):
        rid = f"L{k}"
        rows.append((rid, pa, pb, c))
        src = f"[source: sheet-{k % 7}]"
        if k % 4 == 3:
            lines.append(f"requirement {rid} {src}: {pa} - {pb} shall be at most {c}")
        else:
            lines.append(f"requirement {rid} {src}: {pa} - {pb} <= {c}")
    planted = frozenset(f"L{k}" for k in planted_at)
    return Sheet("\n".join(lines) + "\n", len(names), tuple(rows), planted)


# --------------------------------------------------------------------------- timing


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


@dataclass
class Clock:
    wall: float = 0.0
    cpu: float = 0.0


@contextlib.contextmanager
def measured() -> Iterator[Clock]:
    """Wall clock and CPU time of this process plus the children that finished meanwhile."""
    clock = Clock()
    w0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
    try:
        yield clock
    finally:
        clock.wall = time.perf_counter() - w0
        clock.cpu = time.process_time() - c0 + _children_cpu() - k0


@dataclass
class Breakdown:
    """Wall-clock seconds per phase of one ``derivative check`` run."""

    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, phase: str, dt: float) -> None:
        self.seconds[phase] = self.seconds.get(phase, 0.0) + dt


@contextlib.contextmanager
def instrumented(breakdown: Breakdown) -> Iterator[None]:
    """Wrap the phases' entry points with timers (the code itself is not changed).

    Nested phases (minimise inside check, the re-checks inside the certificate) are
    timed separately and subtracted from their parent when printed.
    """
    import derivative._typecheck as typecheck_mod
    import derivative.certificates._build as build_mod
    import derivative.grammar as grammar_mod
    import derivative.solver as solver_pkg
    import derivative.solver._certify as certify_mod
    from derivative.solver._question import Question

    patches: list[tuple[Any, str, Any]] = []

    def wrap(owner: Any, attr: str, phase: str) -> None:
        original = getattr(owner, attr)

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                breakdown.add(phase, time.perf_counter() - t0)

        patches.append((owner, attr, original))
        setattr(owner, attr, timed)

    wrap(grammar_mod, "load", "parse")
    wrap(typecheck_mod, "check", "type check")
    wrap(solver_pkg, "check", "check")
    wrap(Question, "minimal_core", "minimise")
    wrap(certify_mod, "certify", "certificate")
    wrap(build_mod, "run_solvers", "re-checks")
    try:
        yield
    finally:
        for owner, attr, original in reversed(patches):
            setattr(owner, attr, original)


def run_derivative(path: str, cert: str, breakdown: Breakdown | None) -> dict[str, Any]:
    """``derivative check PATH --json --certificate CERT`` in this process; its report."""
    from derivative import cli

    out, err = io.StringIO(), io.StringIO()
    ctx: contextlib.AbstractContextManager[None] = (
        instrumented(breakdown) if breakdown is not None else contextlib.nullcontext()
    )
    with ctx, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["check", path, "--json", "--certificate", cert])
    if code != 3:
        raise SystemExit(f"derivative check exited {code}: {err.getvalue()[:2000]}")
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def run_z3(sheet: Sheet) -> set[str]:
    """The same constraints in raw z3py, each behind a literal; a minimised unsat core."""
    import z3

    s = z3.Solver()
    s.set("core.minimize", True)
    names = sorted({a for _, a, _, _ in sheet.rows} | {b for _, _, b, _ in sheet.rows})
    xs = {p: z3.Int(p) for p in names}
    lits: list[Any] = []
    by_lit: dict[str, str] = {}
    for p in names:
        lit = z3.Bool(f"{p}.range")
        s.add(z3.Implies(lit, z3.And(xs[p] >= 0, xs[p] <= HI)))
        lits.append(lit)
        by_lit[str(lit)] = f"{p}.range"
    for rid, a, b, c in sheet.rows:
        lit = z3.Bool(rid)
        s.add(z3.Implies(lit, xs[a] - xs[b] <= c))
        lits.append(lit)
        by_lit[str(lit)] = rid
    if s.check(*lits) != z3.unsat:
        raise SystemExit("z3 did not find the planted contradiction")
    return {by_lit[str(x)] for x in s.unsat_core()}


def best(repeat: int, fn: Callable[[], Any]) -> tuple[Clock, Any]:
    """The best wall clock (and the CPU time of that run) of ``repeat`` runs."""
    chosen: Clock | None = None
    kept: Any = None
    for _ in range(repeat):
        with measured() as clock:
            result = fn()
        if chosen is None or clock.wall < chosen.wall:
            chosen, kept = clock, result
    assert chosen is not None
    return chosen, kept


@dataclass(frozen=True)
class Measured:
    """One size's figures: both sides' best runs, derivative's phases, the cores."""

    n: int
    ours: Clock
    z3: Clock
    seconds: dict[str, float]
    z3_core: int
    core: int
    farkas: bool

    @property
    def ratio(self) -> float:
        """derivative / z3py by wall clock: the goal's figure."""
        return self.ours.wall / self.z3.wall


def warm_up(tmp: str) -> None:
    """One small run of each side, so that no figure pays the imports or the grammar."""
    warm = make_sheet(20)
    warm_path = os.path.join(tmp, "warm.req")
    with open(warm_path, "w", encoding="utf-8") as fh:
        fh.write(warm.text)
    run_derivative(warm_path, os.path.join(tmp, "warm.json"), None)
    run_z3(warm)


def measure(n: int, repeat: int, tmp: str) -> Measured:
    """Both sides on the sheet of ``n`` requirements, best of ``repeat``; the cores checked."""
    sheet = make_sheet(n)
    path = os.path.join(tmp, f"limits{n}.req")
    cert = os.path.join(tmp, f"limits{n}.certificate.json")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(sheet.text)

    def do_derivative() -> tuple[dict[str, Any], Breakdown]:
        bd = Breakdown()
        return run_derivative(path, cert, bd), bd

    t_der, (report, bd) = best(repeat, do_derivative)
    t_z3, z3_core = best(repeat, lambda: run_z3(sheet))

    core = set(report["cores"][0]["ids"])
    assert core == sheet.planted, f"derivative's core {sorted(core)} is not the cycle"
    assert z3_core >= sheet.planted, f"z3's core {sorted(z3_core)} misses the cycle"
    with open(cert, encoding="utf-8") as fh:
        certificate = json.load(fh)
    assert [m["id"] for m in certificate["core"]] == report["cores"][0]["ids"]
    return Measured(n, t_der, t_z3, dict(bd.seconds), len(z3_core), len(core),
                    certificate.get("farkas") is not None)


def breakdown(m: Measured) -> str:
    """Where derivative's wall time went, phase by phase (nested phases subtracted)."""
    sec = m.seconds
    solve = sec.get("check", 0.0) - sec.get("minimise", 0.0)
    phases = (
        sec.get("parse", 0.0)
        + sec.get("type check", 0.0)
        + sec.get("check", 0.0)
        + sec.get("certificate", 0.0)
    )
    return (
        f"parse {sec.get('parse', 0.0):.3f}, type check {sec.get('type check', 0.0):.3f}, "
        f"solve {solve:.3f}, minimise {sec.get('minimise', 0.0):.3f}, "
        f"certificate {sec.get('certificate', 0.0):.3f} (its re-checks "
        f"{sec.get('re-checks', 0.0):.3f} run alongside), "
        f"rest {max(0.0, m.ours.wall - phases):.3f}"
    )


def report(m: Measured) -> None:
    """The three lines printed for one size."""
    print(
        f"N={m.n:>6}: derivative check (end to end, certificate and re-checks) "
        f"{m.ours.wall:.3f} s wall / {m.ours.cpu:.3f} s CPU; z3py build + check + "
        f"minimised core {m.z3.wall:.3f} s wall / {m.z3.cpu:.3f} s CPU "
        f"(z3 core size {m.z3_core}, ours {m.core})"
    )
    print(
        f"          ratio derivative / z3py = {m.ratio:.2f} (wall), "
        f"{m.ours.cpu / m.z3.cpu:.2f} (CPU)   goal <= {GOAL} at {GOAL_SIZE:,}"
    )
    print(
        f"          breakdown (wall, s): {breakdown(m)}"
        f"; farkas: {'yes' if m.farkas else 'no'}"
    )


GOAL = 2.0
GOAL_SIZE = 10_000
"""The goal: derivative / z3py <= 2.0 by wall clock at 10,000 requirements."""


WHOLE_GOALS = {"check / z3py": 2.0, "check / SMT-LIB": 2.5, "parse / z3py": 1.0}


def measure_whole(
    n: int, runs: int, tmp: str, only: tuple[str, ...] = ("z3py", "smtlib", "check", "parse")
) -> dict[str, float]:
    """Median wall seconds of each whole process on the sheet of ``n`` (see the docstring)."""
    sheet = make_sheet(n)
    path = os.path.join(tmp, f"whole{n}.req")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(sheet.text)
    params = sorted({a for _, a, _, _ in sheet.rows} | {b for _, _, b, _ in sheet.rows})
    base = _whole.write_baselines(tmp, params, sheet.rows, HI)
    for argv in base.values():
        found = _whole.core_of(argv)
        assert found >= sheet.planted, f"{argv[1]} missed the planted cycle: {sorted(found)}"
    tool = _whole.tool()
    cert = os.path.join(tmp, f"whole{n}.certificate.json")
    commands = {
        "z3py": (base["z3py"], (0,)),
        "smtlib": (base["smtlib"], (0,)),
        "check": ([*tool, "check", path, "--json", "--certificate", cert], (3,)),
        "parse": ([*tool, "parse", path, "--json"], (0,)),
    }
    return _whole.medians({k: v for k, v in commands.items() if k in only}, runs)


def whole_ratios(t: dict[str, float]) -> dict[str, float]:
    """The three whole-process ratios of ``WHOLE_GOALS``."""
    return {
        "check / z3py": t["check"] / t["z3py"],
        "check / SMT-LIB": t["check"] / t["smtlib"],
        "parse / z3py": t["parse"] / t["z3py"],
    }


def report_whole(n: int, t: dict[str, float]) -> None:
    """One line of medians and the ratios against their goals."""
    print(
        f"N={n:>6} whole process (medians): check {t['check']:.3f} s, parse {t['parse']:.3f} s, "
        f"z3py script {t['z3py']:.3f} s, SMT-LIB script {t['smtlib']:.3f} s"
    )
    print("          " + "; ".join(
        f"{name} = {r:.2f} (goal <= {WHOLE_GOALS[name]})" for name, r in whole_ratios(t).items()
    ))


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s row: the goal's figure at 10,000 (best of 2 quick, 3 in full)."""
    repeat = 2 if quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        warm_up(tmp)
        m = measure(GOAL_SIZE, repeat, tmp)
        whole = measure_whole(GOAL_SIZE, 3 if quick else 5, tmp)
    rows = [
        table_row(
            "check_scale",
            f"whole process, {GOAL_SIZE:,} requirements: {name}",
            baseline=(f"z3py script {whole['z3py']:.2f} s" if "z3py" in name
                      else f"SMT-LIB script {whole['smtlib']:.2f} s"),
            ratio=round(r, 2),
            goal=f"<= {WHOLE_GOALS[name]}",
            met=r <= WHOLE_GOALS[name],
            detail=f"medians: check {whole['check']:.2f} s, parse {whole['parse']:.2f} s",
        )
        for name, r in whole_ratios(whole).items()
    ]
    return [table_row(
        "check_scale", f"derivative check, {GOAL_SIZE:,} requirements (certificate included)",
        baseline=f"z3py {m.z3.wall:.2f} s", ratio=m.ratio, goal=f"<= {GOAL}",
        met=m.ratio <= GOAL,
        detail=(f"derivative {m.ours.wall:.2f} s wall; CPU ratio {m.ours.cpu / m.z3.cpu:.2f}; "
                f"best of {repeat}; breakdown (s): {breakdown(m)}"),
    ), *rows]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--whole", action="store_true",
                    help="also time whole processes (medians of --runs)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        warm_up(tmp)
        for n in (int(s) for s in args.sizes.split(",")):
            report(measure(n, args.repeat, tmp))
            if args.whole:
                report_whole(n, measure_whole(n, args.runs, tmp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
