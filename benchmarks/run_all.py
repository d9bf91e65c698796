"""Every performance benchmark of the project, in one table: figure | baseline | ratio | goal | met.

Run from the repository's root as ``python benchmarks/run_all.py [--json PATH] [--full]
[--only NAME,...] [--details]`` or ``python -m benchmarks.run_all ...``.  Not run in CI.

Each benchmark module gives ``figures(quick) -> list[TableRow]`` (``benchmarks/_rows.py``):
its headline figures, each beside a baseline measured in the same run (these machines are
noisy) and the goal its docstring states.  This imports them one at a time, in the order
of ``BENCHMARKS``, runs them in this process, prints the table and writes it as JSON.
Run alone, each benchmark still prints its own report, as before.

**Quick settings** (the default), small enough that the whole run takes about three
minutes on a two-core machine (the target is under six on a busy one), each still
measuring the goal's own figure; a benchmark's own defaults are in brackets:

- ``startup``: whole processes against ``python -c "import z3"``, median of 7 [15];
- ``check_scale``: 10,000 requirements only, best of 2 [1,000 and 10,000, best of 3];
  whole processes (check, parse, z3py and SMT-LIB scripts), median of 3 [5];
- ``feature_models``: 1,000 and 2,500 requirements, one run each [and 6,000];
- ``parse_scale``: 10,000 requirements, best of 2; declaration lists of an enum of
  20,000 members and 5,000 params, consts and ensures clauses, each also at 2N [50,000,
  10,000, 10,000, 25,000; best of 3];
- ``growth``: parse, type check and check at 10,000 and 50,000 requirements of two
  sheets, each phase in a child process, 10,000 best of 2 [1,000 to 100,000, best of 3;
  about four minutes];
- ``all_cores``: all five instances, best of 2 [3];
- ``race_explore``: 3 repeats, 8 threads x 1,000 stress rounds [5, 2,000];
- ``sandbox_overhead``: 500 examples, best of 3 rounds, 3 starts, 1,000 calls [1,000
  examples, 10 starts, 5,000 calls]; Docker only when an engine and the image are there;
- ``build_e2e``: every example twice per backend, the faster run kept [3 runs, the median];
- ``batch_throughput``: 60 builds through ``derivative batch`` on 1 and 2 Dask workers
  against a plain loop [200 builds on 1, 2 and 4 workers, several minutes];
- ``test_throughput``: its defaults, 400 examples, best of 3 (seconds; with fewer
  examples the generated tests' fixed start would weigh on the ratio);
- ``string_functions``: the catalogue's ``strfn_*`` cases once [best of 3];
- ``mutation``: 6 corpus cases (``QUICK_CASES``) at the default budget, about half a
  minute [all 856 mutants of 54 implementations, about ten minutes:
  ``python benchmarks/mutation.py``].

``--full`` runs each with its own defaults instead (the mutation benchmark on every
subject), about twenty minutes.

**The table.**  ``ratio`` is ours / baseline where the figure is a ratio or a share;
otherwise the figure itself ("found at schedule 7").  ``met`` is ``yes``, ``NO``, or
``-`` when nothing was measured (a Docker row without an engine says "not measured: no
Docker engine").  A benchmark that stops with an error (its own consistency checks: the
same cores, the expected build outcomes) gives one row saying so, ``met`` ``NO``, and the
others still run.  ``--details`` prints each row's detail below the table.

**The JSON** (``--json PATH``, default ``benchmarks/results/performance.json``)::

    {"header": {"date": "...Z" (UTC), "commit": "<git rev-parse HEAD>" or null,
                "python": "3.11.7", "cpus": 2, "settings": "quick" or "full",
                "seconds": {"total": ..., "<benchmark>": ...}},
     "rows": [{"figure", "baseline", "ratio", "goal", "met", "benchmark", "detail"}, ...]}

where ``ratio`` is a number, a text or null and ``met`` true, false or null.

Exit status 0 when no row misses its goal, 1 when one does (a row not measured is neither).
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._rows import TableRow, table_row  # noqa: E402

BENCHMARKS = (
    "startup",
    "check_scale",
    "feature_models",
    "parse_scale",
    "growth",
    "all_cores",
    "race_explore",
    "sandbox_overhead",
    "build_e2e",
    "batch_throughput",
    "test_throughput",
    "mutation",
    "string_functions",
)
"""In this order: ``test_throughput`` loads a Hypothesis profile when imported, so it comes
after the other benchmarks that run Hypothesis in this process (``mutation``'s run in
processes of their own)."""
COLUMNS = ("figure", "baseline", "ratio", "goal", "met")
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "performance.json"

Collect = Callable[[str, bool], list[TableRow]]


# --------------------------------------------------------------------------- running


@contextmanager
def restored_environment() -> Iterator[None]:
    """Undo a benchmark's changes to ``os.environ`` (``test_throughput`` sets the generated
    tests' example count), so that no benchmark runs under another's settings."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def collect(name: str, quick: bool) -> list[TableRow]:
    """``benchmarks.<name>.figures(quick)``, imported only now (imports have side effects)."""
    module = importlib.import_module(f"benchmarks.{name}")
    rows: list[TableRow] = module.figures(quick)
    return rows


def failed_row(name: str, exc: BaseException) -> TableRow:
    """The row of a benchmark that stopped with an error: a miss, with the error's text."""
    message = " ".join(str(exc).split())[:120] or type(exc).__name__
    where = traceback.format_exception(exc)[-2:]
    return table_row(
        name,
        f"{name}: did not complete",
        baseline="-",
        ratio=f"error: {message}",
        goal="-",
        met=False,
        detail="".join(where).strip(),
    )


def run_one(name: str, quick: bool, collect_rows: Collect) -> list[TableRow]:
    """One benchmark's rows, or its error as a row; the environment restored after it."""
    with restored_environment():
        try:
            return collect_rows(name, quick)
        except (Exception, SystemExit) as exc:  # benchmarks stop with SystemExit too
            return [failed_row(name, exc)]


def run_all(
    names: list[str], quick: bool, collect_rows: Collect = collect
) -> tuple[list[TableRow], dict[str, float]]:
    """Every named benchmark's rows, and the seconds each took (progress on stderr)."""
    rows: list[TableRow] = []
    seconds: dict[str, float] = {}
    for i, name in enumerate(names, 1):
        print(f"[{i}/{len(names)}] {name} ...", end="", file=sys.stderr, flush=True)
        began = time.perf_counter()
        rows += run_one(name, quick, collect_rows)
        seconds[name] = round(time.perf_counter() - began, 1)
        print(f" {seconds[name]:.1f} s", file=sys.stderr, flush=True)
    return rows, seconds


# --------------------------------------------------------------------------- the table


def format_ratio(value: float | str | None) -> str:
    """Two decimals, three below 1 (an overhead share of 0.118 stays readable)."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3f}"


def format_met(value: bool | None) -> str:
    """``NO`` in capitals, as the benchmarks print a miss; ``-`` for not measured."""
    return "-" if value is None else ("yes" if value else "NO")


def cells(row: Mapping[str, Any]) -> list[str]:
    """A row's five columns as text."""
    return [
        str(row["figure"]),
        str(row["baseline"]),
        format_ratio(row["ratio"]),
        str(row["goal"]),
        format_met(row["met"]),
    ]


def render(rows: list[TableRow]) -> str:
    """The table, columns padded and separated by `` | `` (Markdown reads it as a table)."""
    body = [cells(r) for r in rows]
    widths = [max(len(c) for c in column) for column in zip(COLUMNS, *body, strict=True)]

    def line(values: list[str] | tuple[str, ...]) -> str:
        return " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    return "\n".join([line(COLUMNS), " | ".join("-" * w for w in widths), *(line(c) for c in body)])


def render_details(rows: list[TableRow]) -> str:
    return "\n".join(
        f"- {r['benchmark']}: {r['figure']}: {r['detail']}" for r in rows if r["detail"]
    )


# --------------------------------------------------------------------------- the JSON


def tool_commit() -> str | None:
    """``git rev-parse HEAD`` of this repository, or None outside a git checkout."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def header(quick: bool, seconds: dict[str, float], total: float) -> dict[str, Any]:
    """When, from which commit, on what: the run's context, without which figures mislead."""
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": tool_commit(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "settings": "quick" if quick else "full",
        "seconds": {"total": round(total, 1), **seconds},
    }


def document(head: dict[str, Any], rows: list[TableRow]) -> dict[str, Any]:
    return {"header": head, "rows": [dict(r) for r in rows]}


def write_json(path: Path, doc: dict[str, Any]) -> None:
    """Written whole to a temporary name, then renamed: never a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    partial.replace(path)


# --------------------------------------------------------------------------- command line


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument(
        "--json",
        metavar="PATH",
        type=Path,
        default=DEFAULT_JSON,
        help="where the table is written as JSON (default: %(default)s)",
    )
    ap.add_argument(
        "--full",
        action="store_true",
        help="each benchmark's own default settings (about ten minutes)",
    )
    ap.add_argument(
        "--only", default="", help="a comma-separated subset of: " + ", ".join(BENCHMARKS)
    )
    ap.add_argument("--details", action="store_true", help="print each row's detail too")
    args = ap.parse_args(argv)
    unknown = set(filter(None, args.only.split(","))) - set(BENCHMARKS)
    if unknown:
        ap.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None, collect_rows: Collect = collect) -> int:
    args = parse_args(argv)
    wanted = set(filter(None, args.only.split(",")))
    names = [n for n in BENCHMARKS if not wanted or n in wanted]
    began = time.perf_counter()
    rows, seconds = run_all(names, not args.full, collect_rows)
    total = time.perf_counter() - began
    write_json(args.json, document(header(not args.full, seconds, total), rows))
    print(render(rows))
    if args.details:
        print("\n" + render_details(rows))
    print(
        f"\n{len(names)} benchmarks in {total:.0f} s ({'full' if args.full else 'quick'} "
        f"settings); JSON: {args.json}"
    )
    return 1 if any(r["met"] is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
