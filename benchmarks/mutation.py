"""Mutation score of the test engine on the corpus's correct implementations.

Run as ``python benchmarks/mutation.py [--examples 30] [--jobs 2] [--cases a,b]``.
Not part of CI: it runs the engine once per mutant (a few hundred runs).

Each ``tests/corpus/<case>/correct.py`` is mutated with ``ast``, one change at a time:

- comparison operators: ``<``↔``<=``, ``>``↔``>=``, ``==``↔``!=``, ``<``↔``>``;
- arithmetic operators: ``+``↔``-``, ``*``→``//``, ``//``→``/``, ``%``→``//``;
- integer constants ±1;
- dropped branches: an ``if`` whose body becomes ``pass``, an ``else`` removed;
- dropped raises: ``raise X`` becomes ``pass``.

Every mutant runs in its own process (a mutant may loop forever: after ``--timeout``
seconds it counts as killed, as a sandboxed call that times out would) against the
case's spec with ``derivative tests``'s engine, in process.  A mutant is *killed* when
some obligation fails (or the run cannot complete).  The report gives the killed share,
then every survivor with its change, so that equivalent mutants (changes that do not
change behaviour on valid inputs, e.g. ``x >= 0`` → ``x > -1`` after a type refinement)
can be told apart; those listed in ``EQUIVALENT`` with a reason are excluded from the
share of non-equivalent mutants (goal >= 95%).  ``figures(quick)`` gives
``benchmarks/run_all.py`` that share, on ``QUICK_CASES`` when quick.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
sys.path.insert(0, str(ROOT))

from benchmarks._rows import TableRow, table_row  # noqa: E402

COMPARE_SWAPS: dict[type[ast.cmpop], list[type[ast.cmpop]]] = {
    ast.Lt: [ast.LtE, ast.Gt],
    ast.LtE: [ast.Lt],
    ast.Gt: [ast.GtE, ast.Lt],
    ast.GtE: [ast.Gt],
    ast.Eq: [ast.NotEq],
    ast.NotEq: [ast.Eq],
}
BINOP_SWAPS: dict[type[ast.operator], list[type[ast.operator]]] = {
    ast.Add: [ast.Sub],
    ast.Sub: [ast.Add],
    ast.Mult: [ast.FloorDiv],
    ast.FloorDiv: [ast.Div],
    ast.Mod: [ast.FloorDiv],
}

_BY_NAME = "enum members are matched by name; their values are never observed"
_CONTINUOUS = "the price is continuous at 5000 g: both tiers give 899 there"
_UNSPECIFIED = "the contract only says short passwords (< 12) are rejected"
_TOKENS = "the contract never looks at how tokens are spelled"

EQUIVALENT: dict[str, str] = {
    # "case:line:change": "why the mutant meets the contract exactly as the original"
    "enum_member_mistake:4:const 1->0": _BY_NAME,
    "enum_member_mistake:6:const 3->4": _BY_NAME,
    "list_max_empty:3:if-body dropped": "max() of an empty list raises ValueError itself",
    "list_max_empty:4:raise dropped": "max() of an empty list raises ValueError itself",
    "shipping_cost_tiers:5:cmp[0] LtE->Lt": _CONTINUOUS,
    "shipping_cost_tiers:5:const 5000->5001": _CONTINUOUS,
    "shipping_cost_tiers:5:const 5000->4999": _CONTINUOUS,
    "token_store_race:11:const 12->13": _UNSPECIFIED,
    "token_store_race:27:cmp[0] Lt->LtE": _UNSPECIFIED,
    "token_store_race:16:const 1->2": _TOKENS,
    "token_store_race:16:const 1->0": _TOKENS,
    "wrong_result_type_bool:3:const 1->0": "0 is within 0..len(s), all the contract asks",
}
"""Survivors judged equivalent by reading them (filled in from a run's report)."""


@dataclass(frozen=True)
class Mutant:
    case: str
    index: int
    line: int
    change: str

    @property
    def key(self) -> str:
        return f"{self.case}:{self.line}:{self.change}"


class _Sites(ast.NodeVisitor):
    """Every mutation site of a module, in a fixed order."""

    def __init__(self) -> None:
        self.sites: list[tuple[int, int, str]] = []  # (node index, variant, description)
        self.nodes: list[ast.AST] = []

    def add(self, node: ast.AST, variants: list[str]) -> None:
        idx = len(self.nodes)
        self.nodes.append(node)
        for v, text in enumerate(variants):
            self.sites.append((idx, v, text))

    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            for new in COMPARE_SWAPS.get(type(op), []):
                self.add(node, [f"cmp[{i}] {type(op).__name__}->{new.__name__}"])
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        for new in BINOP_SWAPS.get(type(node.op), []):
            self.add(node, [f"binop {type(node.op).__name__}->{new.__name__}"])
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            self.add(node, [f"const {node.value}->{node.value + 1}"])
            self.add(node, [f"const {node.value}->{node.value - 1}"])

    def visit_If(self, node: ast.If) -> None:
        self.add(node, ["if-body dropped"])
        if node.orelse:
            self.add(node, ["else dropped"])
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        self.add(node, ["raise dropped"])
        self.generic_visit(node)


def _sites(tree: ast.Module) -> list[tuple[int, int, str]]:
    finder = _Sites()
    finder.visit(tree)
    return finder.sites


def mutate(source: str, index: int) -> tuple[str, int, str]:
    """The ``index``-th mutant of ``source``: its text, line and change."""
    tree = ast.parse(source)
    finder = _Sites()
    finder.visit(tree)
    node_idx, _, change = finder.sites[index]
    node = finder.nodes[node_idx]
    line = getattr(node, "lineno", 0)
    if change.startswith("cmp["):
        i = int(change[4:change.index("]")])
        new = change.split("->")[1]
        node.ops[i] = getattr(ast, new)()  # type: ignore[attr-defined]
    elif change.startswith("binop"):
        node.op = getattr(ast, change.split("->")[1])()  # type: ignore[attr-defined]
    elif change.startswith("const"):
        node.value = int(change.split("->")[1])  # type: ignore[attr-defined]
    elif change == "if-body dropped":
        node.body = [ast.Pass()]  # type: ignore[attr-defined]
    elif change == "else dropped":
        node.orelse = []  # type: ignore[attr-defined]
    elif change == "raise dropped":
        replacement = ast.Pass()
        ast.copy_location(replacement, node)
        _replace(tree, node, replacement)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree), line, change


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list) and old in value:
                value[value.index(old)] = new
                return
            if value is old:
                setattr(parent, field, new)
                return


def mutants(cases: list[str]) -> Iterator[Mutant]:
    for case in cases:
        source = (CORPUS / case / "correct.py").read_text(encoding="utf-8")
        for index, (_, _, change) in enumerate(_sites(ast.parse(source))):
            _, line, _ = mutate(source, index)
            yield Mutant(case, index, line, change)


# --------------------------------------------------------------------------- one mutant


def run_one(case: str, index: int, examples: int) -> dict[str, object]:
    """Run the engine on one mutant (in this process); the verdict as JSON-able data."""
    sys.path.insert(0, str(ROOT))
    from derivative.api import load
    from derivative.forge.testing import Engine, EngineOptions, InProcessCaller, load_target

    source = (CORPUS / case / "correct.py").read_text(encoding="utf-8")
    text, line, change = mutate(source, index)
    folder = Path(tempfile.mkdtemp(prefix="mutant-"))
    path = folder / f"mutant_{case}_{index}.py"
    path.write_text(text, encoding="utf-8")
    info = load([CORPUS / case / "spec.req"]).types
    try:
        module = load_target(str(path))
    except Exception as exc:  # a mutant that cannot even be imported is caught
        return {"killed": True, "why": f"import: {exc}"}
    engine = Engine(info, InProcessCaller.for_contract(module, info),
                    EngineOptions(examples=examples, sequences=10, steps=10,
                                  interleavings=500))
    evidence = engine.run()
    failed = [o.id for o in evidence.obligations if o.status == "failed"]
    unexercised = [o.id for o in evidence.obligations if o.status == "unexercised"]
    return {"killed": bool(failed or unexercised), "failed": failed,
            "unexercised": unexercised, "line": line, "change": change}


def _spawn(m: Mutant, examples: int, timeout: float) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--one", m.case, str(m.index), "--examples", str(examples)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"killed": True, "why": f"timeout after {timeout:.0f} s"}
    lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"killed": True, "why": f"crashed: {done.stderr.strip()[-300:]}"}
    result: dict[str, object] = json.loads(lines[-1])
    return result


@dataclass(frozen=True)
class Score:
    """A run's mutants, their verdicts (in the same order) and what they add up to."""

    cases: list[str]
    todo: list[Mutant]
    results: list[dict[str, object]]
    elapsed: float

    @property
    def killed(self) -> int:
        return sum(1 for r in self.results if r["killed"])

    @property
    def survivors(self) -> list[tuple[Mutant, dict[str, object]]]:
        return [(m, r) for m, r in zip(self.todo, self.results, strict=True) if not r["killed"]]

    @property
    def equivalent(self) -> list[Mutant]:
        """Survivors listed in ``EQUIVALENT`` (judged by reading them)."""
        return [m for m, _ in self.survivors if m.key in EQUIVALENT]

    @property
    def share(self) -> float:
        """The killed share of the non-equivalent mutants: the goal's figure."""
        return self.killed / max(len(self.todo) - len(self.equivalent), 1)


def corpus_cases(only: list[str] | None = None) -> list[str]:
    """The corpus's cases with a correct implementation (those in ``only``, if given)."""
    cases = sorted(c.name for c in CORPUS.iterdir() if (c / "correct.py").is_file())
    return [c for c in cases if c in only] if only else cases


def measure(cases: list[str], examples: int, jobs: int, timeout: float) -> Score:
    """Every mutant of ``cases``, each in a process of its own, ``jobs`` at a time."""
    todo = list(mutants(cases))
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda m: _spawn(m, examples, timeout), todo))
    return Score(cases, todo, results, time.perf_counter() - started)


def report(score: Score) -> None:
    """The printout of a run (the command line's output)."""
    total, killed = len(score.todo), score.killed
    sys.stdout.write(
        f"{total} mutants of {len(score.cases)} implementations in {score.elapsed:.0f} s: "
        f"{killed} killed ({killed / total:.1%}); "
        f"{len(score.equivalent)} survivors judged equivalent; "
        f"killed share of non-equivalent mutants {score.share:.1%} "
        f"(goal >= 95%)\n"
    )
    by_kind: dict[str, list[int]] = {}
    for m, r in zip(score.todo, score.results, strict=True):
        kind = m.change.split()[0] if not m.change.startswith("cmp[") else "cmp"
        by_kind.setdefault(kind, [0, 0])
        by_kind[kind][0] += 1
        by_kind[kind][1] += 1 if r["killed"] else 0
    for kind, (n, k) in sorted(by_kind.items()):
        sys.stdout.write(f"  {kind:8s} {k}/{n} killed\n")
    for m, _ in score.survivors:
        why = EQUIVALENT.get(m.key, "NOT judged equivalent")
        sys.stdout.write(f"survivor {m.key}  ({why})\n")


GOAL = 0.95
"""The killed share of non-equivalent mutants."""
QUICK_CASES = ["age_category_boundary", "enum_member_mistake", "list_max_empty",
               "wrong_exception_type"]
"""``run_all``'s subset, 23 mutants (half a minute on two idle cores, twice that on busy
ones): comparisons and constants at boundaries, an operator, dropped raises and branches,
and four survivors judged equivalent."""


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s row: the subset when quick, the whole corpus (a few minutes) in full."""
    cases = corpus_cases(QUICK_CASES if quick else None)
    score = measure(cases, examples=30, jobs=2, timeout=120.0)
    alive = [m.key for m, _ in score.survivors if m.key not in EQUIVALENT]
    subset = (f"{len(cases)} of {len(corpus_cases())} corpus cases (run_all's subset; the "
              "whole corpus: python benchmarks/mutation.py, a few minutes)") if quick else (
              f"all {len(cases)} corpus cases")
    return [table_row(
        "mutation", "killed share of non-equivalent mutants",
        baseline="none (an absolute share)", ratio=score.share, goal=f">= {GOAL}",
        met=score.share >= GOAL,
        detail=(f"{score.killed} of {len(score.todo) - len(score.equivalent)} killed, "
                f"{len(score.equivalent)} equivalent survivors, in {score.elapsed:.0f} s; "
                f"{subset}" + (f"; survivors not judged equivalent: {', '.join(alive)}"
                               if alive else "")),
    )]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=30)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--cases", default="")
    p.add_argument("--one", nargs=2, metavar=("CASE", "INDEX"))
    p.add_argument("--json", default="", help="also write the results to this file")
    args = p.parse_args()
    if args.one:
        sys.stdout.write(json.dumps(run_one(args.one[0], int(args.one[1]), args.examples)) + "\n")
        return 0
    cases = corpus_cases(args.cases.split(",") if args.cases else None)
    score = measure(cases, args.examples, args.jobs, args.timeout)
    report(score)
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{"mutant": m.key, **r} for m, r in zip(score.todo, score.results, strict=True)],
            indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Mutant", "Score", "figures", "main", "measure", "mutants", "mutate", "run_one"]
