"""``benchmarks/run_all.py``: the table and its JSON, from fake rows (no benchmark runs).

The benchmarks take minutes and depend on the machine; what can be checked quickly is
that their rows come out as one table with the five columns in order, that "not measured"
stays distinct from a miss (``-``, null) and that the JSON has its header and every key.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks import run_all  # noqa: E402
from benchmarks._rows import TableRow, not_measured, table_row  # noqa: E402

KEYS = {"figure", "baseline", "ratio", "goal", "met", "benchmark", "detail"}


def fake_rows() -> list[TableRow]:
    return [
        table_row("check_scale", "derivative check, 10,000 requirements",
                  baseline="z3py 0.41 s", ratio=1.2345, goal="<= 2.0", met=True,
                  detail="best of 2"),
        table_row("build_e2e", "build pipeline overhead (process)", baseline="limits 0.1 s",
                  ratio=0.1184, goal="< 0.1", met=False),
        table_row("race_explore", "explore: race", baseline="stress: 0 hits",
                  ratio="found at schedule 7", goal="found", met=True),
        table_row("sandbox_overhead", "Hypothesis test, docker sandbox",
                  baseline="in-process 0.2 s",
                  ratio=not_measured("no Docker engine answers at unix:///x"),
                  goal="<= 2.0", met=None),
    ]


def test_the_table_has_the_five_columns_and_one_line_per_row() -> None:
    lines = run_all.render(fake_rows()).splitlines()
    assert [c.strip() for c in lines[0].split(" | ")] == list(run_all.COLUMNS)
    assert set(lines[1].replace(" | ", "")) == {"-"}
    assert len(lines) == 2 + len(fake_rows())
    cells = [[c.strip() for c in line.split(" | ")] for line in lines[2:]]
    assert [c[2] for c in cells] == ["1.23", "0.118", "found at schedule 7",
                                     "not measured: no Docker engine"]
    assert [c[4] for c in cells] == ["yes", "NO", "yes", "-"]
    # padded: every separator sits at the same place on every line
    assert len({line.index(" | ") for line in lines}) == 1


def test_failed_benchmark_is_a_miss_with_its_error() -> None:
    def boom(name: str, quick: bool) -> list[TableRow]:
        raise SystemExit("derivative check exited 70")

    rows = run_all.run_one("check_scale", True, boom)
    assert len(rows) == 1 and rows[0]["met"] is False
    assert rows[0]["ratio"] == "error: derivative check exited 70"
    assert set(rows[0]) == KEYS


def test_main_writes_the_json_and_says_whether_every_goal_was_met(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[tuple[str, bool]] = []

    def fake(name: str, quick: bool) -> list[TableRow]:
        seen.append((name, quick))
        return [r for r in fake_rows() if r["benchmark"] == name]

    out = tmp_path / "results" / "performance.json"
    code = run_all.main(["--json", str(out), "--only", "race_explore,sandbox_overhead"], fake)
    assert code == 0  # a row not measured is not a miss
    assert seen == [("race_explore", True), ("sandbox_overhead", True)]
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert set(doc) == {"header", "rows"}
    head = doc["header"]
    assert {"date", "commit", "python", "cpus"} <= set(head)
    assert head["date"].endswith("Z") and head["settings"] == "quick"
    assert head["commit"] is None or len(head["commit"]) == 40
    assert set(head["seconds"]) == {"total", "race_explore", "sandbox_overhead"}
    assert [set(r) for r in doc["rows"]] == [KEYS, KEYS]
    assert doc["rows"][1]["met"] is None and doc["rows"][1]["ratio"].startswith("not measured")
    printed = capsys.readouterr().out
    assert printed.startswith("figure") and "found at schedule 7" in printed

    assert run_all.main(["--json", str(out), "--full", "--only", "build_e2e"], fake) == 1
    assert json.loads(out.read_text(encoding="utf-8"))["header"]["settings"] == "full"


def test_only_names_known_benchmarks() -> None:
    with pytest.raises(SystemExit):
        run_all.parse_args(["--only", "no_such_benchmark"])
