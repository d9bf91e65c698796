"""Growth to 100,000 requirements: parse, type check and check must grow linearly.

Run as ``python benchmarks/growth.py [--sizes 1000,10000,50000,100000]
[--sheets cycle,independent] [--repeat 3]``.

Two generated sheets, each written once per size N:

- ``cycle``: ``check_scale.make_sheet(N)``, N difference requirements over about N/4
  ranged params with a planted contradiction of 5 members (the only minimal core);
  ``derivative check`` must answer ``infeasible_proven`` with exactly that core;
- ``independent``: N params ``int in 0..10`` and N requirements, one per param
  (``p_i >= i % 5``), trivially satisfiable; the answer must be ``feasible``.

Every measurement runs in a child process of its own (``--child``), after a warm-up in
that child (imports, the grammar, a tiny check), so that no figure pays a one-time cost
and no size inherits another's heap:

- **parse**: ``derivative.grammar.load`` of the file;
- **type check**: ``derivative._typecheck.check`` of what was parsed (its own time; its
  memory is the peak of parse and type check together);
- **check**: ``derivative check FILE --json`` through the CLI's ``main`` (parse, type
  check, solving, the core with its minimality, the certificate with its re-checks in
  fresh solver processes, the JSON report);
- **z3py**: a z3py script with default settings (no parameter set) on the same
  constraints, each behind an assumption literal as derivative asks them: its verdict
  and its time (building the terms and ``check``).

Time is CPU time (the child's own, plus its finished children's for ``check``): on a
shared two-core machine it is what the work costs.  Memory is the growth of the child's
peak resident set (``VmHWM``) over its resident set after the warm-up.  Sizes up to 10,000
are measured best of ``--repeat`` (they are the base of every ratio; a noisy base would
flatter the ratios), larger ones once.

For each phase and each N above 10,000 it prints the ratio to linear growth from 10,000,
``t(N) / (t(10k) * N / 10k)`` (goal: <= 1.3, time and memory), and for each size
whether derivative answered ``unknown`` where z3py decided (it must never happen).

``figures(quick)`` gives ``benchmarks/run_all.py`` its rows: quick settings measure
10,000 and 50,000, full ones 1,000 to 100,000.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks._rows import TableRow, table_row
from benchmarks.check_scale import HI, make_sheet

SIZES = (1_000, 10_000, 50_000, 100_000)
QUICK_SIZES = (10_000, 50_000)
BASE = 10_000
"""Ratios are to linear growth from this size."""
GOAL = 1.3
"""Every phase's time and memory within 1.3 x linear growth from 10,000."""
SHEETS = ("cycle", "independent")
PHASES = ("parse", "type check", "check")
INDEPENDENT_HI = 10


# --------------------------------------------------------------------------- the sheets


@dataclass(frozen=True)
class Constraints:
    """A sheet as data, for the z3py script: ranged params and ``a - b <= c`` or ``a >= c``."""

    ranges: tuple[tuple[str, int, int], ...]
    differences: tuple[tuple[str, str, str, int], ...] = ()
    """(id, a, b, c): ``a - b <= c``."""
    floors: tuple[tuple[str, str, int], ...] = ()
    """(id, a, c): ``a >= c``."""


def independent_text(n: int) -> str:
    """The ``independent`` sheet of ``n`` params and ``n`` requirements (trivially sat)."""
    lines = [f"spec independent{n} version 1", '"One requirement per param."', ""]
    lines += [f"param p{i}: int in 0..{INDEPENDENT_HI}" for i in range(n)]
    lines.append("")
    lines += [f"requirement R{i}: p{i} >= {i % 5}" for i in range(n)]
    return "\n".join(lines) + "\n"


def sheet_text(sheet: str, n: int) -> str:
    return make_sheet(n).text if sheet == "cycle" else independent_text(n)


def constraints(sheet: str, n: int) -> Constraints:
    if sheet == "cycle":
        made = make_sheet(n)
        names = sorted({a for _, a, _, _ in made.rows} | {b for _, _, b, _ in made.rows})
        return Constraints(tuple((p, 0, HI) for p in names), differences=made.rows)
    return Constraints(
        tuple((f"p{i}", 0, INDEPENDENT_HI) for i in range(n)),
        floors=tuple((f"R{i}", f"p{i}", i % 5) for i in range(n)),
    )


def expected(sheet: str, n: int) -> tuple[str, list[str]]:
    """The status derivative must answer, and its core's ids (sorted; none if feasible)."""
    if sheet == "cycle":
        return "infeasible_proven", sorted(make_sheet(n).planted)
    return "feasible", []


# --------------------------------------------------------------------------- in the child


def _status_kb(field: str) -> int:
    """``VmHWM`` (this process's peak resident set) or ``VmRSS`` (its current one), in KB.

    Not ``getrusage(RUSAGE_SELF).ru_maxrss``: Linux carries the parent's peak over into a
    child at ``exec`` (a 100,000-line sheet generated in the parent then hides every
    smaller child's growth), while ``VmHWM`` belongs to the child's own address space.
    """
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise SystemExit(f"/proc/self/status has no {field}")


def _baseline_kb() -> int:
    """The resident set after the warm-up, with the memory freed so far given back to
    the system first (else the phase would grow into it unseen)."""
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    libc = ctypes.util.find_library("c")
    if libc is not None:
        ctypes.CDLL(libc).malloc_trim(0)
    return _status_kb("VmRSS")


def _peak_kb() -> int:
    return _status_kb("VmHWM")


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ru.ru_utime + ru.ru_stime


def child_front(path: str) -> dict[str, Any]:
    """Parse, then type-check, ``path``; each one's CPU time and the peak's growth."""
    from derivative import grammar
    from derivative._typecheck import check

    check(grammar.parse_text(independent_text(3)))
    base = _baseline_kb()
    t0 = time.process_time()
    contract = grammar.load(path)
    t_parse = time.process_time() - t0
    peak_parse = _peak_kb()
    t0 = time.process_time()
    check(contract)
    t_check = time.process_time() - t0
    return {
        "parse": t_parse,
        "type check": t_check,
        "parse kb": peak_parse - base,
        "type check kb": _peak_kb() - base,
    }


def _cli_check(path: str) -> tuple[int, dict[str, Any]]:
    from derivative import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["check", path, "--json"])
    if code not in (0, 3, 6):
        raise SystemExit(f"derivative check exited {code}: {err.getvalue()[:2000]}")
    report: dict[str, Any] = json.loads(out.getvalue())
    return code, report


def child_check(path: str, warm: str) -> dict[str, Any]:
    """``derivative check PATH --json`` after a warm-up check of ``warm``."""
    _cli_check(warm)
    base = _baseline_kb()
    w0, c0 = time.perf_counter(), _cpu()
    _, report = _cli_check(path)
    cpu, wall = _cpu() - c0, time.perf_counter() - w0
    return {
        "check": cpu,
        "check wall": wall,
        "check kb": _peak_kb() - base,
        "status": report["status"],
        "core": sorted(report["cores"][0]["ids"]) if report["cores"] else [],
        "unknowns": [
            {"question": u["question"], "ids": len(u["ids"]), "reason": u["reason"]}
            for u in report["unknowns"]
        ],
    }


def child_z3(sheet: str, n: int) -> dict[str, Any]:
    """The same constraints in z3py with default settings: verdict, CPU time, memory."""
    import z3

    data = constraints(sheet, n)
    z3.Solver().check()
    base = _baseline_kb()
    t0 = time.process_time()
    s = z3.Solver()
    xs: dict[str, Any] = {}
    lits: list[Any] = []
    for p, lo, hi in data.ranges:
        x = xs[p] = z3.Int(p)
        lit = z3.Bool(f"{p}.range")
        s.add(z3.Implies(lit, z3.And(x >= lo, x <= hi)))
        lits.append(lit)
    for rid, a, b, c in data.differences:
        lit = z3.Bool(rid)
        s.add(z3.Implies(lit, xs[a] - xs[b] <= c))
        lits.append(lit)
    for rid, a, c in data.floors:
        lit = z3.Bool(rid)
        s.add(z3.Implies(lit, xs[a] >= c))
        lits.append(lit)
    verdict = s.check(*lits)
    core = len(s.unsat_core()) if verdict == z3.unsat else 0
    return {
        "z3": time.process_time() - t0,
        "z3 kb": _peak_kb() - base,
        "verdict": str(verdict),
        "z3 core": core,
    }


def child_main(argv: Sequence[str]) -> int:
    """``--child front PATH`` | ``--child check PATH WARM`` | ``--child z3 SHEET N``."""
    kind = argv[0]
    if kind == "front":
        out = child_front(argv[1])
    elif kind == "check":
        out = child_check(argv[1], argv[2])
    else:
        out = child_z3(argv[1], int(argv[2]))
    print(json.dumps(out))
    return 0


# --------------------------------------------------------------------------- the parent


def run_child(*args: str) -> dict[str, Any]:
    """One measurement in a fresh Python process; its JSON line."""
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"growth child {args[:2]} failed ({done.returncode}): {done.stderr[-2000:]}"
        )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def best(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    return min(runs, key=lambda r: float(r[key]))


@dataclass
class Size:
    """One sheet at one size: every phase's CPU seconds and peak growth (KB), the answers."""

    sheet: str
    n: int
    seconds: dict[str, float] = field(default_factory=dict)
    kb: dict[str, int] = field(default_factory=dict)
    status: str = ""
    core: list[str] = field(default_factory=list)
    unknowns: list[dict[str, Any]] = field(default_factory=list)
    z3_verdict: str = ""
    check_wall: float = 0.0

    @property
    def decided_by_z3(self) -> bool:
        return self.z3_verdict in ("sat", "unsat")

    @property
    def unknown_where_z3_decided(self) -> bool:
        return self.status == "unknown" and self.decided_by_z3

    def problems(self) -> list[str]:
        """What is wrong with derivative's answer here (nothing when it is the expected one)."""
        status, core = expected(self.sheet, self.n)
        out: list[str] = []
        if self.status != status:
            out.append(f"status {self.status}, expected {status}")
        elif core and self.core != core:
            out.append(f"core {self.core}, expected {core}")
        want = "unsat" if status == "infeasible_proven" else "sat"
        if self.z3_verdict != want:
            out.append(f"z3py answered {self.z3_verdict}, expected {want}")
        return out


def measure(sheet: str, n: int, repeat: int, tmp: str) -> Size:
    """Every phase of ``sheet`` at size ``n`` (best of ``repeat`` up to ``BASE``)."""
    path = os.path.join(tmp, f"{sheet}{n}.req")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(sheet_text(sheet, n))
    warm = os.path.join(tmp, f"{sheet}-warm.req")
    with open(warm, "w", encoding="utf-8") as fh:
        fh.write(sheet_text(sheet, 20))
    times = repeat if n <= BASE else 1
    front = [run_child("front", path) for _ in range(times)]
    checks = [run_child("check", path, warm) for _ in range(times)]
    z3s = [run_child("z3", sheet, str(n)) for _ in range(times)]
    size = Size(sheet, n)
    for phase in ("parse", "type check"):
        size.seconds[phase] = best(front, phase)[phase]
        size.kb[phase] = best(front, f"{phase} kb")[f"{phase} kb"]
    chosen = best(checks, "check")
    size.seconds["check"] = chosen["check"]
    size.kb["check"] = best(checks, "check kb")["check kb"]
    size.check_wall = chosen["check wall"]
    size.status, size.core, size.unknowns = chosen["status"], chosen["core"], chosen["unknowns"]
    z3run = best(z3s, "z3")
    size.seconds["z3py"], size.kb["z3py"] = z3run["z3"], z3run["z3 kb"]
    size.z3_verdict = z3run["verdict"]
    return size


def ratio(value: float, base: float, n: int, base_n: int) -> float:
    """``value(N) / (value(base) * N / base)``: 1 is linear growth, above it is worse."""
    return value / max(base * n / base_n, 1e-9)


@dataclass(frozen=True)
class Ratio:
    sheet: str
    phase: str
    what: str
    """``time`` or ``memory``."""
    n: int
    value: float


def ratios(sizes: list[Size], phases: Sequence[str] = PHASES) -> list[Ratio]:
    """Every phase's time and memory ratio to linear from ``BASE`` (sizes above it)."""
    out: list[Ratio] = []
    for sheet in {s.sheet for s in sizes}:
        mine = sorted((s for s in sizes if s.sheet == sheet), key=lambda s: s.n)
        base = next((s for s in mine if s.n == BASE), None)
        if base is None:
            continue
        for s in mine:
            if s.n <= BASE:
                continue
            for phase in phases:
                out.append(
                    Ratio(
                        sheet,
                        phase,
                        "time",
                        s.n,
                        ratio(s.seconds[phase], base.seconds[phase], s.n, BASE),
                    )
                )
                out.append(
                    Ratio(
                        sheet, phase, "memory", s.n, ratio(s.kb[phase], base.kb[phase], s.n, BASE)
                    )
                )
    return out


def print_sheet(sheet: str, sizes: list[Size]) -> None:
    """Two tables for one sheet: CPU seconds and peak growth per phase, each with its
    ratio to linear growth from ``BASE`` in brackets; then the answers."""
    mine = sorted((s for s in sizes if s.sheet == sheet), key=lambda s: s.n)
    base = next((s for s in mine if s.n == BASE), None)

    def cell(s: Size, values: dict[str, Any], phase: str, scale: float, fmt: str) -> str:
        shown = format(values[phase] / scale, fmt)
        if base is None or s.n <= BASE or phase == "z3py":
            return shown
        basis = (base.seconds if values is s.seconds else base.kb)[phase]
        return f"{shown} ({ratio(values[phase], basis, s.n, BASE):.2f})"

    columns = (*PHASES, "z3py")
    for title, scale, fmt in (("CPU seconds", 1.0, ".2f"), ("peak growth, MB", 1024.0, ".0f")):
        print(f"\nsheet {sheet}: {title} (ratio to linear from {BASE:,})")
        print(f"{'N':>8} | " + " | ".join(f"{c:>14}" for c in columns))
        for s in mine:
            values: dict[str, Any] = s.seconds if scale == 1.0 else s.kb
            print(
                f"{s.n:>8,} | "
                + " | ".join(f"{cell(s, values, c, scale, fmt):>14}" for c in columns)
            )
    print(f"\nsheet {sheet}: answers")
    for s in mine:
        wrong = s.problems()
        print(
            f"{s.n:>8,}: derivative {s.status}"
            + (f" (WRONG: {'; '.join(wrong)})" if wrong else "")
            + f", z3py {s.z3_verdict}; check wall {s.check_wall:.1f} s"
        )
        for u in s.unknowns:
            print(f"{'':>10}unknown {u['question']} ({u['ids']:,} ids): {u['reason']}")


def summary(sizes: list[Size]) -> list[str]:
    """The verdict lines: the worst ratio per phase, and unknowns where z3py decided."""
    lines = []
    found = ratios(sizes)
    for what in ("time", "memory"):
        for phase in PHASES:
            mine = [r for r in found if r.phase == phase and r.what == what]
            if not mine:
                continue
            worst = max(mine, key=lambda r: r.value)
            met = "yes" if worst.value <= GOAL else "NO"
            lines.append(
                f"{phase} {what}: worst ratio to linear {worst.value:.2f} "
                f"({worst.sheet}, N={worst.n:,}); goal <= {GOAL}: {met}"
            )
    bad = [s for s in sizes if s.unknown_where_z3_decided]
    wrong = [s for s in sizes if s.problems()]
    where = ", ".join(f"{s.sheet} N={s.n:,}" for s in bad)
    lines.append(
        f"unknown where z3py decided: {len(bad)} of {len(sizes)} runs "
        f"(must be 0){': ' + where if bad else ''}"
    )
    lines.append(f"answers other than expected: {len(wrong)}")
    return lines


def run(
    sizes: Sequence[int],
    sheets: Sequence[str],
    repeat: int,
    progress: Callable[[str], None] | None = None,
) -> list[Size]:
    out: list[Size] = []
    with tempfile.TemporaryDirectory() as tmp:
        for sheet in sheets:
            for n in sizes:
                if progress is not None:
                    progress(f"{sheet} N={n:,}")
                out.append(measure(sheet, n, repeat, tmp))
    return out


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s rows: worst time ratio per phase, worst memory ratio, the answers."""
    sizes = run(QUICK_SIZES if quick else SIZES, SHEETS, 2 if quick else 3)
    top = max(s.n for s in sizes)
    span = f"{BASE // 1000}k to {top // 1000}k"
    found = ratios(sizes)
    rows: list[TableRow] = []
    bases = {s.sheet: s for s in sizes if s.n == BASE}
    for phase in PHASES:
        mine = [r for r in found if r.phase == phase and r.what == "time"]
        worst = max(mine, key=lambda r: r.value)
        rows.append(
            table_row(
                "growth",
                f"growth {span}: {phase} CPU, worst ratio to linear",
                baseline=f"linear from {BASE // 1000}k ({bases[worst.sheet].seconds[phase]:.2f} s)",
                ratio=worst.value,
                goal=f"<= {GOAL}",
                met=worst.value <= GOAL,
                detail="; ".join(f"{r.sheet} N={r.n:,}: {r.value:.2f}" for r in mine),
            )
        )
    memory = [r for r in found if r.what == "memory"]
    worst = max(memory, key=lambda r: r.value)
    rows.append(
        table_row(
            "growth",
            f"growth {span}: peak memory, worst ratio to linear (all phases)",
            baseline=f"linear from {BASE // 1000}k",
            ratio=worst.value,
            goal=f"<= {GOAL}",
            met=worst.value <= GOAL,
            detail="; ".join(f"{r.sheet} {r.phase} N={r.n:,}: {r.value:.2f}" for r in memory),
        )
    )
    bad = [s for s in sizes if s.unknown_where_z3_decided or s.problems()]
    rows.append(
        table_row(
            "growth",
            f"growth {span}: unknown or wrong answers where z3py decides",
            baseline="z3py, default settings: decides every size",
            ratio=f"{len(bad)} of {len(sizes)}",
            goal="0",
            met=not bad,
            detail="; ".join(
                f"{s.sheet} N={s.n:,}: {s.status}, z3py {s.z3_verdict} "
                f"({s.seconds['check']:.1f} s vs {s.seconds['z3py']:.1f} s)"
                for s in sizes
            ),
        )
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        return child_main(argv[1:])
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    ap.add_argument("--sheets", default=",".join(SHEETS))
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="best of this many runs for sizes up to 10,000 (default 3)",
    )
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    sheets = [s for s in args.sheets.split(",") if s]
    unknown = set(sheets) - set(SHEETS)
    if unknown:
        ap.error(f"unknown sheet(s): {', '.join(sorted(unknown))}")
    began = time.perf_counter()
    measured = run(
        sizes,
        sheets,
        args.repeat,
        lambda what: print(f"measuring {what} ...", file=sys.stderr, flush=True),
    )
    for sheet in sheets:
        print_sheet(sheet, measured)
    print()
    for line in summary(measured):
        print(line)
    print(f"\n({time.perf_counter() - began:.0f} s)")
    bad = any(s.unknown_where_z3_decided or s.problems() for s in measured)
    over = any(r.value > GOAL for r in ratios(measured))
    return 1 if bad or over else 0


if __name__ == "__main__":
    raise SystemExit(main())
