"""``derivative check`` against z3py on consistent feature-model-like requirement sets.

Run as ``python benchmarks/feature_models.py [--sizes 1000,2500,6000] [--repeat 1]
[--no-warnings]``.

Issue 15, item 1.  Its own generator (``make_model``, fixed seed) writes a feature model
in the project's language: a tree of boolean features (``param f12: bool``), each child
implying its parent (``when f12, f3``), mandatory children (``when f3, f12``),
or-groups (``when f3, f12 or f13 or f14``) and alternative groups (the or-group plus
``when f12, not (f13 or f14)`` for each child), cross-tree ``requires``/``excludes``
constraints true at a hidden configuration, a few int params (``p4: int in 0..1000``)
bounded under some features (``when f7, p4 shall be at least 120``) and in sums
(``p4 + p9 <= 1500``), and a handful of *dead* features (a feature that excludes its
own parent), whose conditions the warnings must report.  The set is consistent.

Measured in the same run, best of ``--repeat``:

- **whole process**: ``derivative check SPEC`` as a user runs it, against
  ``python benchmarks/feature_models.py --z3 DATA.json``, which imports z3, builds the
  same constraints (from the same generated data) and decides them (``check`` and the
  model);
- **in process**: ``derivative``'s CLI ``main(["check", SPEC])`` (parse, type check,
  check with its warnings, the report), against building and deciding the constraints
  with z3py in this process.

It prints both ratios (derivative / z3py; goal <= 5, aim <= 3) and the warnings
found.  ``figures(quick)`` gives ``benchmarks/run_all.py`` the whole-process ratio at
each size (quick: 1,000 and 2,500; full: 1,000, 2,500 and 6,000).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import _whole
from benchmarks._rows import TableRow, table_row

GOAL = 5.0
AIM = 3.0
SIZES = (1000, 2500, 6000)

Node = Any
"""A condition as data: ``["f", name]``, ``["not", x]``, ``["or", x, y, ...]``,
``["implies", a, b]``, ``["ge", p, c]`` (``p >= c``), ``["sum_le", p, q, c]``."""


@dataclass(frozen=True)
class Model:
    """A generated feature model: spec text and the same requirements as data."""

    text: str
    features: tuple[str, ...]
    ints: tuple[str, ...]
    rows: tuple[tuple[str, Node], ...]
    dead: tuple[str, ...]


def _src(node: Node) -> str:
    """The condition in the project's language (a plain expression)."""
    op = node[0]
    if op == "f":
        return str(node[1])
    if op == "not":
        inner = _src(node[1])
        return f"not {inner}" if node[1][0] == "f" else f"not ({inner})"
    if op == "or":
        return " or ".join(_src(x) for x in node[1:])
    if op == "ge":
        return f"{node[1]} shall be at least {node[2]}"
    if op == "sum_le":
        return f"{node[1]} + {node[2]} <= {node[3]}"
    raise ValueError(op)


def _line(rid: str, node: Node) -> str:
    """A requirement: ``when A, B`` for an implication, else the plain condition."""
    if node[0] == "implies":
        return f"requirement {rid}: when {_src(node[1])}, {_src(node[2])}"
    return f"requirement {rid}: {_src(node)}"


def _tree(rnd: random.Random, nfeat: int) -> list[tuple[int, list[int], str]]:
    """Groups (parent, children, kind) covering features 1..nfeat-1 under root 0."""
    groups: list[tuple[int, list[int], str]] = []
    queue, nxt = [0], 1
    while queue and nxt < nfeat:
        parent = queue.pop(0)
        for _ in range(rnd.randint(1, 3)):
            if nxt >= nfeat:
                break
            kind = rnd.choice(("optional", "optional", "mandatory", "or", "alt"))
            size = 1 if kind in ("optional", "mandatory") else rnd.randint(2, 4)
            kids = list(range(nxt, min(nfeat, nxt + size)))
            nxt += len(kids)
            if len(kids) == 1 and kind in ("or", "alt"):
                kind = "optional"
            groups.append((parent, kids, kind))
            queue += kids
    return groups


def _select(rnd: random.Random, nfeat: int, groups: list[tuple[int, list[int], str]]) -> set[int]:
    """A hidden valid configuration (top-down)."""
    chosen = {0}
    for parent, kids, kind in groups:  # parents come before their children
        if parent not in chosen:
            continue
        if kind == "mandatory":
            chosen |= set(kids)
        elif kind == "optional":
            chosen |= {k for k in kids if rnd.random() < 0.6}
        elif kind == "alt":
            chosen.add(rnd.choice(kids))
        else:
            chosen |= set(rnd.sample(kids, rnd.randint(1, len(kids))))
    return chosen


def make_model(n: int, seed: int = 15) -> Model:
    """About ``n`` requirements (the generator stops at ``n`` exactly)."""
    rnd = random.Random(seed)
    nfeat = max(8, n * 10 // 21)
    groups = _tree(rnd, nfeat)
    chosen = _select(rnd, nfeat, groups)
    parent_of = {k: p for p, kids, _ in groups for k in kids}
    f = [f"f{i}" for i in range(nfeat)]
    nints = max(2, nfeat // 25)
    ints = [f"p{i}" for i in range(nints)]
    hidden = [rnd.randrange(0, 1001) for _ in ints]
    rows: list[Node] = [["f", f[0]]]
    for parent, kids, kind in groups:
        for k in kids:
            rows.append(["implies", ["f", f[k]], ["f", f[parent]]])
        if kind == "mandatory":
            rows.append(["implies", ["f", f[parent]], ["f", f[kids[0]]]])
        elif kind in ("or", "alt"):
            rows.append(["implies", ["f", f[parent]], ["or", *(["f", f[k]] for k in kids)]])
        if kind == "alt":
            for k in kids:
                others = [["f", f[o]] for o in kids if o != k]
                body = others[0] if len(others) == 1 else ["or", *others]
                rows.append(["implies", ["f", f[k]], ["not", body]])
    # Dead features: an optional, unchosen feature that excludes its own parent.
    optional = [k for p, kids, kind in groups if kind == "optional" for k in kids
                if k not in chosen and parent_of.get(k, 0) != 0]
    dead = sorted(rnd.sample(optional, min(len(optional), max(1, n // 500))))
    for k in dead:
        rows.append(["implies", ["f", f[k]], ["not", ["f", f[parent_of[k]]]]])
    while len(rows) < n:
        r = rnd.random()
        if r < 0.5:
            a, b = rnd.randrange(1, nfeat), rnd.randrange(1, nfeat)
            if a == b:
                continue
            if a in chosen and b not in chosen:
                rows.append(["implies", ["f", f[a]], ["not", ["f", f[b]]]])
            elif (a in chosen and b in chosen) or a not in chosen:
                if a not in chosen and b not in chosen and rnd.random() < 0.5:
                    rows.append(["implies", ["f", f[a]], ["not", ["f", f[b]]]])
                else:
                    rows.append(["implies", ["f", f[a]], ["f", f[b]]])
        elif r < 0.8:
            a, i = rnd.randrange(1, nfeat), rnd.randrange(nints)
            c = hidden[i] - rnd.randrange(0, 100)
            rows.append(["implies", ["f", f[a]], ["ge", ints[i], max(0, c)]])
        else:
            i, j = rnd.sample(range(nints), 2)
            rows.append(["sum_le", ints[i], ints[j], hidden[i] + hidden[j] + rnd.randrange(0, 50)])
    rows = rows[:n]
    named = tuple((f"R{k}", node) for k, node in enumerate(rows))
    lines = [f"spec features{n} version 1", '"A generated feature model."', ""]
    lines += [f"param {x}: bool" for x in f]
    lines += [f"param {p}: int in 0..1000" for p in ints]
    lines.append("")
    lines += [_line(rid, node) for rid, node in named]
    return Model("\n".join(lines) + "\n", tuple(f), tuple(ints), named, tuple(f[k] for k in dead))


# --------------------------------------------------------------------------- z3py side


def z3_decide(data: dict[str, Any]) -> str:
    """Build the constraints of ``data`` (``Model`` as JSON) in z3py and decide them."""
    import z3

    s = z3.Solver()
    v: dict[str, Any] = {x: z3.Bool(x) for x in data["features"]}
    for p in data["ints"]:
        v[p] = z3.Int(p)
        s.add(v[p] >= 0, v[p] <= 1000)

    def build(node: Node) -> Any:
        op = node[0]
        if op == "f":
            return v[node[1]]
        if op == "not":
            return z3.Not(build(node[1]))
        if op == "or":
            return z3.Or([build(x) for x in node[1:]])
        if op == "implies":
            return z3.Implies(build(node[1]), build(node[2]))
        if op == "ge":
            return v[node[1]] >= node[2]
        return v[node[1]] + v[node[2]] <= node[3]

    for _, node in data["rows"]:
        s.add(build(node))
    verdict = str(s.check())
    if verdict == "sat":
        s.model()
    return verdict


def _data(m: Model) -> dict[str, Any]:
    return {"features": list(m.features), "ints": list(m.ints), "rows": [list(r) for r in m.rows]}


# --------------------------------------------------------------------------- timing


@dataclass(frozen=True)
class Measured:
    n: int
    ours_process: float
    z3_process: float
    ours_inproc: float
    z3_inproc: float
    warnings: dict[str, int]
    dead: int

    @property
    def process_ratio(self) -> float:
        return self.ours_process / self.z3_process

    @property
    def inproc_ratio(self) -> float:
        return self.ours_inproc / self.z3_inproc


def _best(repeat: int, fn: Any) -> tuple[float, Any]:
    best, kept = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        if dt < best:
            best, kept = dt, out
    return best, kept


def measure(n: int, repeat: int, tmp: str, extra: list[str]) -> Measured:
    """Both sides at ``n`` requirements, whole process and in process."""
    from derivative import cli

    m = make_model(n)
    spec = os.path.join(tmp, f"features{n}.req")
    data = os.path.join(tmp, f"features{n}.json")
    with open(spec, "w", encoding="utf-8") as fh:
        fh.write(m.text)
    with open(data, "w", encoding="utf-8") as fh:
        json.dump(_data(m), fh)

    def ours_process() -> None:
        r = subprocess.run([*_whole.tool(), "check", spec, *extra], capture_output=True,
                           env=_whole.child_env())
        if r.returncode != 0:
            raise SystemExit(f"derivative check exited {r.returncode}: {r.stdout[-2000:]!r}")

    def z3_process() -> None:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--z3", data],
                           capture_output=True, text=True, env=_whole.child_env())
        if r.returncode != 0 or r.stdout.strip() != "sat":
            raise SystemExit(f"the z3py script failed: {r.stdout} {r.stderr[-2000:]}")

    def ours_inproc() -> dict[str, Any]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = cli.main(["check", spec, "--json", *extra])
        if code != 0:
            raise SystemExit(f"derivative check exited {code}")
        report: dict[str, Any] = json.loads(out.getvalue())
        return report

    payload = _data(m)
    t_op, _ = _best(repeat, ours_process)
    t_zp, _ = _best(repeat, z3_process)
    t_oi, report = _best(repeat, ours_inproc)
    t_zi, _ = _best(repeat, lambda: z3_decide(payload))
    kinds: dict[str, int] = {}
    for w in report.get("warnings", []):
        kinds[w["kind"]] = kinds.get(w["kind"], 0) + 1
    return Measured(n, t_op, t_zp, t_oi, t_zi, kinds, len(m.dead))


def report(x: Measured) -> None:
    print(f"N={x.n:>5}: whole process derivative {x.ours_process:.2f} s, z3py "
          f"{x.z3_process:.2f} s, ratio {x.process_ratio:.2f}; in process derivative "
          f"{x.ours_inproc:.2f} s, z3py {x.z3_inproc:.2f} s, ratio {x.inproc_ratio:.2f}"
          f"   (goal <= {GOAL:g}, aim <= {AIM:g})")
    print(f"         warnings {dict(sorted(x.warnings.items()))} ({x.dead} dead features planted)")


def warm_up(tmp: str) -> None:
    measure(60, 1, tmp, [])


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s rows: the whole-process ratio at each size."""
    sizes = SIZES[:2] if quick else SIZES
    rows: list[TableRow] = []
    with tempfile.TemporaryDirectory() as tmp:
        warm_up(tmp)
        for n in sizes:
            x = measure(n, 1, tmp, [])
            rows.append(table_row(
                "feature_models", f"derivative check, feature model of {n:,} requirements",
                baseline=f"z3py script {x.z3_process:.2f} s", ratio=x.process_ratio,
                goal=f"<= {GOAL:g} (aim {AIM:g})", met=x.process_ratio <= GOAL,
                detail=(f"whole process {x.ours_process:.2f} s; in process {x.ours_inproc:.2f} s "
                        f"vs {x.z3_inproc:.2f} s (ratio {x.inproc_ratio:.2f}); warnings "
                        f"{x.warnings}"),
            ))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-warnings", action="store_true", help="pass --no-warnings to check")
    ap.add_argument("--write", metavar="N", type=int, help="print the spec of N requirements")
    ap.add_argument("--z3", metavar="DATA", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.z3:
        with open(args.z3, encoding="utf-8") as fh:
            print(z3_decide(json.load(fh)))
        return 0
    if args.write:
        sys.stdout.write(make_model(args.write).text)
        return 0
    extra = ["--no-warnings"] if args.no_warnings else []
    with tempfile.TemporaryDirectory() as tmp:
        warm_up(tmp)
        for n in (int(s) for s in args.sizes.split(",")):
            report(measure(n, args.repeat, tmp, extra))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
