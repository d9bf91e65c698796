"""Mutation score of the test engine: how many wrong versions of correct code it rejects.

Run as ``python benchmarks/mutation.py --label after`` (about 20-30 minutes on two cores:
every mutant of every subject, in process, at the default budget); it prints the summary
and writes ``benchmarks/results/mutation-<label>.txt`` and ``.json``.  Not part of CI.

*Subjects* (``_mutation_subjects.py``): the corpus's correct implementations, the bundled
examples' correct candidates and the blind rounds' candidates expected ``verified``, each
with its contract.  *Mutants* (``_mutation_ops.py``): one AST change at a time: comparison
and boundary flips, swapped operands, arithmetic operators, ``and``/``or``, a removed
``not`` or minus, integer constants ±1, removed branches and raises, dropped
``lower()``/``strip()``-like calls, early returns and a dropped last statement, slice
bounds and indexes ±1.

Each mutant is judged as ``derivative run`` judges a candidate: by default in process, in
long-lived worker processes (``_mutation_worker.py``: the same engine, the default example
budget, derandomised, white-box hints of the mutant's text), ``--jobs`` at a time; with
``--sandbox``, through the real ``derivative run --sandbox process`` (slower: best with
``--cases``).  A mutant is *killed* when the run's status is not ``passed``; one still
running after ``--timeout`` seconds counts as killed (``run``'s call timeout would fail
it).  Each subject's unchanged implementation runs first: if it does not pass, its
mutants are left out (and listed), since killing them proves nothing.

Survivors listed in ``EQUIVALENT`` (with the reason they meet the contract on every valid
input) are left out of the *kill rate*, the killed share of non-equivalent mutants (goal
>= 98%); every other survivor is printed under ``SURVIVORS``.  *Time to first failure*: per
killed mutant, from the start of its run to the first failing judgement (in process), or
the whole run (``--sandbox``, timeouts, import errors); the median is reported.
``figures(quick)`` gives ``benchmarks/run_all.py`` the kill rate on ``QUICK_CASES``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT))

from benchmarks._mutation_equivalent import EQUIVALENT  # noqa: E402
from benchmarks._mutation_ops import kind  # noqa: E402
from benchmarks._mutation_subjects import (  # noqa: E402
    Mutant,
    Subject,
    mutants_of,
    original,
    pick,
    subject,
    wrong,
)
from benchmarks._mutation_worker import run_sandboxed  # noqa: E402
from benchmarks._rows import TableRow, table_row  # noqa: E402

GOAL = 0.98
"""The killed share of non-equivalent mutants (issue 13)."""
QUICK_CASES = ["age_category_boundary", "enum_member_mistake", "list_max_empty",
               "wrong_exception_type", "palindrome_case_sensitive", "monotonic_direction"]
"""``run_all``'s subset: boundaries, an enum, raises, and the shapes of issue 13's two
false passes."""
Result = dict[str, Any]
FALSE_PASS_CASES = ("palindrome_case_sensitive", "monotonic_direction")
"""Corpus cases of the shape of issue 13's two false passes: their ``wrong.py`` is judged
too, and the summary says whether it was caught."""


# --------------------------------------------------------------------------- workers


class _Worker:
    """One ``_mutation_worker.py`` process, restarted after a mutant it had to be killed for."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, str(ROOT / "benchmarks" / "_mutation_worker.py")],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, cwd=ROOT)
        return self.proc

    def ask(self, m: Mutant, examples: int | None, timeout: float) -> Result:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        fired = threading.Event()

        def stop() -> None:
            fired.set()
            proc.kill()

        timer = threading.Timer(timeout, stop)
        timer.start()
        request = {"mutant": m.__dict__, "examples": examples or 100}
        try:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        finally:
            timer.cancel()
        if line:
            result: Result = json.loads(line)
            return result
        proc.kill()
        proc.wait()
        self.proc = None
        why = f"timeout after {timeout:.0f} s" if fired.is_set() else "the worker died"
        return {"killed": True, "why": why, "seconds": timeout if fired.is_set() else 0.0,
                "first_failure": None}

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


def judge_all(todo: list[Mutant], examples: int | None, jobs: int, timeout: float,
              sandbox: bool, progress: IO[str] | None = None) -> list[Result]:
    """Every mutant's result, in ``todo``'s order, ``jobs`` at a time."""
    local = threading.local()
    workers: list[_Worker] = []
    done = [0]
    lock = threading.Lock()

    def one(m: Mutant) -> Result:
        if sandbox:
            result = run_sandboxed(m, examples, timeout)
        else:
            if not hasattr(local, "worker"):
                local.worker = _Worker()
                with lock:
                    workers.append(local.worker)
            result = local.worker.ask(m, examples, timeout)
        with lock:
            done[0] += 1
            if progress is not None and done[0] % 25 == 0:
                progress.write(f"  {done[0]}/{len(todo)} mutants\n")
                progress.flush()
        return result

    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(one, todo))
    finally:
        for w in workers:
            w.close()


# --------------------------------------------------------------------------- the score


@dataclass
class Score:
    """A run's mutants, their verdicts (in the same order) and what they add up to."""

    subjects: list[Subject]
    broken: dict[str, Result]
    """Subjects whose unchanged implementation did not pass (their mutants left out)."""
    todo: list[Mutant]
    results: list[Result]
    elapsed: float
    settings: dict[str, Any] = field(default_factory=dict)
    false_passes: dict[str, Result] = field(default_factory=dict)
    """``FALSE_PASS_CASES``' wrong implementations and their verdicts."""

    def pairs(self) -> list[tuple[Mutant, Result]]:
        return list(zip(self.todo, self.results, strict=True))

    @property
    def killed(self) -> int:
        return sum(1 for r in self.results if r["killed"])

    @property
    def survivors(self) -> list[Mutant]:
        return [m for m, r in self.pairs() if not r["killed"]]

    @property
    def equivalent(self) -> list[Mutant]:
        """Survivors listed in ``EQUIVALENT`` (judged by reading them)."""
        return [m for m in self.survivors if m.key in EQUIVALENT]

    @property
    def alive(self) -> list[Mutant]:
        """The non-equivalent survivors: the engine's misses."""
        return [m for m in self.survivors if m.key not in EQUIVALENT]

    @property
    def share(self) -> float:
        """The killed share of the non-equivalent mutants: the goal's figure."""
        return self.killed / max(len(self.todo) - len(self.equivalent), 1)

    def first_failures(self) -> list[float]:
        """Seconds to the first failure of each killed mutant (the run's time without one)."""
        return [float(r["first_failure"] if r.get("first_failure") is not None
                      else r.get("seconds", 0.0)) for r in self.results if r["killed"]]


def measure(subjects: list[Subject], examples: int | None, jobs: int, timeout: float,
            sandbox: bool = False, progress: IO[str] | None = None) -> Score:
    """Every subject's original, then every mutant of those whose original passed."""
    started = time.perf_counter()
    originals = judge_all([original(s) for s in subjects], examples, jobs, timeout, sandbox)
    broken = {s.name: r for s, r in zip(subjects, originals, strict=True) if r["killed"]}
    shapes = [s for s in subjects if s.name in FALSE_PASS_CASES]
    false_passes = dict(zip([s.name for s in shapes], judge_all(
        [wrong(s) for s in shapes], examples, jobs, timeout, sandbox), strict=True))
    todo = [m for s in subjects if s.name not in broken for m in mutants_of(s)]
    if progress is not None:
        progress.write(f"{len(todo)} mutants of {len(subjects) - len(broken)} subjects\n")
    results = judge_all(todo, examples, jobs, timeout, sandbox, progress)
    return Score(subjects, broken, todo, results, time.perf_counter() - started,
                 {"examples": examples or "default (100)", "jobs": jobs, "timeout": timeout,
                  "mode": "sandbox (derivative run --sandbox process)" if sandbox
                  else "in process (the run's engine and options)"}, false_passes)


# --------------------------------------------------------------------------- the report


def _source_line(m: Mutant) -> str:
    lines = subject(m.subject).source.read_text(encoding="utf-8").splitlines()
    return lines[m.line - 1].strip() if 0 < m.line <= len(lines) else ""


def _tally(score: Score, key: str) -> list[str]:
    rows: dict[str, list[int]] = {}
    for m, r in score.pairs():
        name = kind(m.change) if key == "kind" else subject(m.subject).group
        row = rows.setdefault(name, [0, 0, 0])
        row[0] += 1
        row[1] += 1 if r["killed"] else 0
        row[2] += 1 if m.key in EQUIVALENT and not r["killed"] else 0
    return [f"  {name:10s} {k:4d}/{n:<4d} killed, {e} equivalent"
            for name, (n, k, e) in sorted(rows.items())]


def summary(score: Score) -> str:
    """The printout of a run (also the ``.txt`` file)."""
    total, killed, equiv = len(score.todo), score.killed, len(score.equivalent)
    times = score.first_failures()
    median = statistics.median(times) if times else float("nan")
    out = [
        f"mutation benchmark, {datetime.date.today()}, commit {_commit()}",
        "settings: " + ", ".join(f"{k} {v}" for k, v in score.settings.items()),
        f"{total} mutants of {len(score.subjects) - len(score.broken)} implementations, "
        f"{score.elapsed:.0f} s",
        f"killed {killed}; survivors {total - killed} ({equiv} equivalent, "
        f"{len(score.alive)} not)",
        f"KILL RATE (killed / non-equivalent): {killed}/{total - equiv} = {score.share:.1%} "
        f"(goal >= {GOAL:.0%})",
        f"median time to first failure: {median:.3f} s over {len(times)} killed mutants"
        + (f" (90th percentile {sorted(times)[int(len(times) * 0.9)]:.3f} s, mean "
           f"{statistics.mean(times):.3f} s)" if times else ""),
        "by operator:", *_tally(score, "kind"), "by source:", *_tally(score, "group"),
    ]
    for name, r in score.broken.items():
        out.append(f"LEFT OUT {name}: the unchanged implementation does not pass "
                   f"({r.get('why') or ', '.join(r.get('failed', []) + r.get('unexercised', []))})")
    for name, r in score.false_passes.items():
        verdict = "caught" if r["killed"] else "NOT CAUGHT (a false pass)"
        out.append(f"ISSUE 13 SHAPE {name}/wrong.py: {verdict}")
    out.append(f"SURVIVORS ({len(score.alive)}, not judged equivalent):")
    out += [f"  {m.key}    | {_source_line(m)}" for m in score.alive]
    out.append(f"EQUIVALENT survivors ({equiv}):")
    out += [f"  {m.key}: {EQUIVALENT[m.key]}" for m in score.equivalent]
    wrong = [m.key for m, r in score.pairs() if r["killed"] and m.key in EQUIVALENT]
    if wrong:
        out.append("KILLED but listed as equivalent (the table is wrong): " + ", ".join(wrong))
    return "\n".join(out) + "\n"


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=ROOT)
    return done.stdout.strip() or "unknown"


def to_json(score: Score) -> dict[str, Any]:
    return {"settings": score.settings, "elapsed": score.elapsed, "broken": score.broken,
            "false_passes": score.false_passes,
            "rows": [{"mutant": m.key, "kind": kind(m.change), **r} for m, r in score.pairs()]}


def _rows(doc: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = doc["rows"] if isinstance(doc, dict) else doc
    return rows


def rescore(path: Path, subjects: list[Subject]) -> Score:
    """A saved run's verdicts scored again (``--rescore``): after ``EQUIVALENT`` changed."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    by_key = {m.key: m for s in subjects for m in mutants_of(s)}
    pairs = [(by_key[r["mutant"]], r) for r in _rows(doc) if r["mutant"] in by_key]
    meta = doc if isinstance(doc, dict) else {}
    return Score(subjects, meta.get("broken", {}), [m for m, _ in pairs],
                 [r for _, r in pairs], float(meta.get("elapsed", 0.0)),
                 {**meta.get("settings", {}), "rescored from": path.name},
                 meta.get("false_passes", {}))


def agreement(score: Score, other: Path) -> str:
    """How this run's verdicts compare with another run's (``--compare``), mutant by mutant."""
    theirs = {r["mutant"]: r["killed"] for r in _rows(json.loads(other.read_text("utf-8")))}
    common = [(m.key, bool(r["killed"])) for m, r in score.pairs() if m.key in theirs]
    differ = [k for k, v in common if theirs[k] != v]
    return (f"agreement with {other.name}: {len(common) - len(differ)}/{len(common)} same "
            "verdict" + (f"; differ: {', '.join(differ)}" if differ else "") + "\n")


# --------------------------------------------------------------------------- entry points


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s row: ``QUICK_CASES`` when quick, every subject in full."""
    subjects = pick(QUICK_CASES if quick else None)
    score = measure(subjects, examples=None, jobs=2, timeout=60.0)
    alive = [m.key for m in score.alive]
    return [table_row(
        "mutation", "killed share of non-equivalent mutants",
        baseline="none (an absolute share)", ratio=score.share, goal=f">= {GOAL}",
        met=score.share >= GOAL,
        detail=(f"{score.killed} of {len(score.todo) - len(score.equivalent)} killed, "
                f"{len(score.equivalent)} equivalent survivors, in {score.elapsed:.0f} s; "
                f"{len(subjects)} subjects" + ("" if not quick else " (run_all's subset)")
                + (f"; survivors not judged equivalent: {', '.join(alive)}" if alive else "")),
    )]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--examples", type=int, default=None,
                   help="generated inputs per function (default: the engine's, as run)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per mutant")
    p.add_argument("--cases", default="", help="subjects, comma-separated (a prefix such "
                   "as round-1 or examples takes every subject under it)")
    p.add_argument("--sandbox", action="store_true",
                   help="judge through `derivative run --sandbox process`")
    p.add_argument("--label", default="", help="write benchmarks/results/mutation-LABEL"
                   ".txt and .json")
    p.add_argument("--compare", default="", help="a earlier run's .json: verdicts that differ")
    p.add_argument("--list", action="store_true", help="only list the mutants")
    p.add_argument("--rescore", default="", help="a saved run's .json: report it again "
                   "with the current EQUIVALENT table (nothing is run)")
    return p


def main() -> int:
    args = _parser().parse_args()
    subjects = pick([c for c in args.cases.split(",") if c] or None)
    if args.list:
        for s in subjects:
            sys.stdout.writelines(f"{m.key}\n" for m in mutants_of(s))
        return 0
    score = rescore(Path(args.rescore), subjects) if args.rescore else measure(
        subjects, args.examples, args.jobs, args.timeout, args.sandbox, progress=sys.stderr)
    text = summary(score)
    if args.compare:
        text += agreement(score, Path(args.compare))
    sys.stdout.write(text)
    if args.label and not args.rescore:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"mutation-{args.label}.txt").write_text(text, encoding="utf-8")
        (RESULTS / f"mutation-{args.label}.json").write_text(
            json.dumps(to_json(score), indent=0) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["EQUIVALENT", "Score", "figures", "main", "measure", "summary"]
