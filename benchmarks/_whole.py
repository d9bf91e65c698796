"""Whole-process timing of ``derivative`` against z3 scripts run the same way.

In-process figures leave out what a user waits for: the interpreter's start, imports,
reading the file, printing the JSON.  These helpers time fresh processes, interleaved
in one loop so that every command sees the same machine load, and take medians.

The two baselines decide the same constraints as the sheet of ``check_scale`` (each
range and requirement behind its own literal, ``check``, a minimised unsat core):

- **z3py**: a script that reads the rows from a JSON file and builds z3py objects;
- **SMT-LIB**: a script that hands z3 the same constraints as SMT-LIB text
  (``Solver.from_string``, named assertions), which skips the object-building cost of
  z3py and is the fastest way in from Python.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

Z3PY_SCRIPT = '''
import json, sys
import z3
data = json.load(open(sys.argv[1]))
hi = data["hi"]
s = z3.Solver()
s.set("core.minimize", True)
xs = {p: z3.Int(p) for p in data["params"]}
lits, names = [], {}
for p in data["params"]:
    lit = z3.Bool(p + ".range")
    s.add(z3.Implies(lit, z3.And(xs[p] >= 0, xs[p] <= hi)))
    lits.append(lit); names[str(lit)] = p + ".range"
for rid, a, b, c in data["rows"]:
    lit = z3.Bool(rid)
    s.add(z3.Implies(lit, xs[a] - xs[b] <= c))
    lits.append(lit); names[str(lit)] = rid
assert s.check(*lits) == z3.unsat
print(json.dumps(sorted(names[str(x)] for x in s.unsat_core())))
'''

SMTLIB_SCRIPT = '''
import json, sys
import z3
text = open(sys.argv[1]).read()
s = z3.Solver()
s.set("core.minimize", True)
s.from_string(text)
assert s.check() == z3.unsat
print(json.dumps(sorted(str(x) for x in s.unsat_core())))
'''


def smtlib_text(params: Sequence[str], rows: Sequence[tuple[str, str, str, int]], hi: int) -> str:
    """The sheet as SMT-LIB: one named assertion per range and per requirement."""

    def q(name: str) -> str:
        return f"|{name}|"

    def num(c: int) -> str:
        return str(c) if c >= 0 else f"(- {-c})"

    out = ["(set-option :produce-unsat-cores true)"]
    out += [f"(declare-const {q(p)} Int)" for p in params]
    out += [f"(assert (! (and (>= {q(p)} 0) (<= {q(p)} {hi})) :named {q(p + '.range')}))"
            for p in params]
    out += [f"(assert (! (<= (- {q(a)} {q(b)}) {num(c)}) :named {q(rid)}))"
            for rid, a, b, c in rows]
    return "\n".join(out) + "\n"


def write_baselines(folder: str, params: Sequence[str],
                    rows: Sequence[tuple[str, str, str, int]], hi: int) -> dict[str, list[str]]:
    """Write both baseline scripts and their inputs into ``folder``; name -> argv."""
    d = Path(folder)
    (d / "z3py_script.py").write_text(Z3PY_SCRIPT)
    (d / "smtlib_script.py").write_text(SMTLIB_SCRIPT)
    (d / "rows.json").write_text(json.dumps({"hi": hi, "params": list(params),
                                             "rows": [list(r) for r in rows]}))
    (d / "sheet.smt2").write_text(smtlib_text(params, rows, hi))
    return {
        "z3py": [sys.executable, str(d / "z3py_script.py"), str(d / "rows.json")],
        "smtlib": [sys.executable, str(d / "smtlib_script.py"), str(d / "sheet.smt2")],
    }


def tool() -> list[str]:
    """``derivative`` as a user starts it: the console script, else ``python -m``."""
    script = Path(sys.executable).with_name("derivative")
    try:
        first = script.read_bytes()[:200].split(b"\n", 1)[0]
    except OSError:
        first = b""
    if first.startswith(b"#!") and b"python" in first:
        return [str(script)]
    return [sys.executable, "-m", "derivative"]


def child_env() -> dict[str, str]:
    """The environment of a user's shell: bytecode may be written (and so reused)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_once(argv: Sequence[str], ok: Sequence[int] = (0,)) -> tuple[float, str]:
    """Wall seconds of one process and its stdout; an unexpected exit is an error."""
    start = time.perf_counter()
    done = subprocess.run(list(argv), cwd=ROOT, env=child_env(), capture_output=True,
                          text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in ok:
        raise SystemExit(f"{argv[-3:]} exited {done.returncode}: {done.stderr[-1500:]}")
    return elapsed, done.stdout


def medians(commands: Mapping[str, tuple[Sequence[str], Sequence[int]]],
            runs: int) -> dict[str, float]:
    """Median wall seconds per command; each is run once to warm up, then interleaved."""
    for argv, ok in commands.values():
        run_once(argv, ok)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (argv, ok) in commands.items():
            times[name].append(run_once(argv, ok)[0])
    return {name: statistics.median(ts) for name, ts in times.items()}


def core_of(argv: Sequence[str]) -> set[str]:
    """The core a baseline script prints (to check it found the planted one)."""
    out: Any = json.loads(run_once(argv)[1])
    return set(out)
