"""Long runs are flat and work everywhere; deep nesting is a located error (docs/language.md §7.2).

A sum of 260 terms once made ``derivative parse --json`` an internal error (the JSON
serialiser's depth limit), and 300 nested ``not``, 10,000 unary minus, 20,000 ``and``,
5,000 nested ``if``/``implies``/indexing, a regex nested 5,000 deep and 2,000 nested
``forall`` all ended in a RecursionError (exit 70).  Now:

- a run of ``+``, ``*``, ``and`` or ``or`` is one node, so long runs parse, check, print,
  encode, certify and become tests like short ones (exit 0, or 3 with a certificate that
  re-checks);
- nesting deeper than ``MAX_DEPTH`` is refused right after parsing, at the place where the
  limit is passed (file, line, column, caret; exit 2), and a regex nested deeper than
  ``MAX_GROUP_DEPTH`` at its offset;
- every command handles every kind of nesting *at* the limit (the walkers recurse, so the
  limit must leave them room).

The CLI runs in-process (``main`` returns the exit code), under pytest's own stack, which
is deeper than a command's; one test runs the real command in a subprocess, with a large
timeout as the only clock (a hostile input must be answered in bounded time).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from derivative import api
from derivative._depth import MAX_DEPTH, depth
from derivative._errors import DerivativeError
from derivative._eval import evaluate
from derivative._regex import MAX_GROUP_DEPTH
from derivative.cli import main

HEAD = "spec deep version 1\n\nparam x: int in 0..10\nparam b: bool\nparam s: str\n"
PREFIX = "requirement R: "
"""Every hostile expression is the one requirement on line 6 and starts at column 16."""


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# --------------------------------------------------------------------------- too deep

DEEP: dict[str, tuple[str, str, int | None]] = {
    # name: (declarations after HEAD, requirement expression, column of the refusal)
    "300 not": ("", "not " * 300 + "b", 16 + 4 * 100),
    "10,000 unary minus": ("", "-" * 10_000 + "x >= 0", 16 + 99),
    "5,000 nested if": ("", "(" + "if b then x else " * 5_000 + "x) >= 0", None),
    "5,000 implies": ("", "b implies " * 5_000 + "b", 16 + 10 * 99),  # the 100th's left b
    "5,000 indexing": ("const L: list[int] = [1, 2]\n", "L" + "[0]" * 5_000 + " >= 0", 16),
    "2,000 nested forall": (
        "",
        "".join(f"forall i{k} in 0..1: " for k in range(2_000)) + "b",
        None,
    ),
    "301 subtractions": ("", "x" + " - x" * 300 + " >= 0", 16),
    "150 nested lists": ("", "len(" + "[" * 150 + "x" + "]" * 150 + ") >= 0", None),
}


def deep_spec(tmp_path: Path, case: str) -> tuple[str, int]:
    decls, expr, _ = DEEP[case]
    text = HEAD + decls + PREFIX + expr + "\n"
    return write(tmp_path, "deep.req", text), 6 + decls.count("\n")


def assert_located(err: str, path: str, line: int, column: int | None) -> None:
    """``file:line:column: error: ...``, the source line and a caret; no traceback."""
    head = err.splitlines()[0]
    assert head.startswith(f"{path}:{line}:"), err[:300]
    if column is not None:
        assert head.startswith(f"{path}:{line}:{column}: error: "), head
    assert "nested more than" in head, head
    caret = err.splitlines()[2]
    assert caret.strip() == "^", caret[:80]
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize("case", sorted(DEEP))
@pytest.mark.parametrize("command", [("parse", "--json"), ("check",)])
def test_too_deep_is_a_located_bad_input(
    tmp_path: Path, case: str, command: tuple[str, ...]
) -> None:
    path, line = deep_spec(tmp_path, case)
    code, out, err = cli(*command, path)
    assert code == 2, err[-2000:]
    assert out == ""
    assert_located(err, path, line, DEEP[case][2])


def test_a_list_type_nested_too_deep_is_refused_at_its_place(tmp_path: Path) -> None:
    """``MAX_DEPTH`` lists around an ``int``: the ``int`` is the level past the limit."""
    ty = "list[" * MAX_DEPTH + "int" + "]" * MAX_DEPTH
    path = write(tmp_path, "type.req", HEAD + f"param p: {ty}\n" + PREFIX + "len(p) >= 0\n")
    column = len("param p: ") + 1 + 5 * MAX_DEPTH
    for command in (("parse", "--json"), ("check",)):
        code, _, err = cli(*command, path)
        assert code == 2, err[-2000:]
        assert err.startswith(f"{path}:6:{column}: error: a type nested more than "), err[:300]


def test_nested_list_types_within_the_limit_are_checked(tmp_path: Path) -> None:
    """Each level of a list type gets its own variable in the type's ``all(...)`` (there
    were four names, and the fifth level was an internal error)."""
    ty = "list[" * 6 + "int" + "]" * 6
    path = write(tmp_path, "lists.req", HEAD + f"param p: {ty}\n" + PREFIX + "len(p) >= 1\n")
    code, out, err = cli("check", path)
    assert code == 0, err[-2000:]
    assert "feasible" in out


def test_a_regex_nested_too_deep_is_refused_at_its_offset(tmp_path: Path) -> None:
    pattern = "(" * 5_000 + "a" + ")" * 5_000
    path = write(tmp_path, "regex.req", HEAD + PREFIX + f'matches(s, "{pattern}")\n')
    column = len(PREFIX) + len('matches(s, "') + 1 + MAX_GROUP_DEPTH
    for command in (("parse", "--json"), ("check",)):
        code, _, err = cli(*command, path)
        assert code == 2, err[-2000:]
        assert err.startswith(f"{path}:6:{column}: error: unsupported regular expression: "
                              f"groups are nested more than {MAX_GROUP_DEPTH} deep"), err[:300]
        assert err.splitlines()[2].strip() == "^"


def test_a_date_run_of_more_than_the_limit_is_refused(tmp_path: Path) -> None:
    """Each step of date arithmetic must stay in the calendar, so it nests in every
    reading: a run of ``+`` on a date may take ``MAX_DEPTH`` steps, not more."""
    at = "date(\"2000-01-01\")" + " + 1" * MAX_DEPTH
    ok = write(tmp_path, "ok.req", HEAD + "param d: date\n" + PREFIX + f"d <= {at}\n")
    assert cli("check", ok)[0] == 0
    past = at + " + 1"
    bad = write(tmp_path, "bad.req", HEAD + "param d: date\n" + PREFIX + f"d <= {past}\n")
    code, _, err = cli("check", bad)
    assert code == 2, err
    assert f"takes more than {MAX_DEPTH} steps on a date" in err
    assert err.startswith(f"{bad}:7:21: error: ")


def test_hostile_input_ends_in_bounded_time_as_a_real_command(tmp_path: Path) -> None:
    """The command as users run it, with only a generous timeout as a clock."""
    path, _ = deep_spec(tmp_path, "10,000 unary minus")
    proc = subprocess.run(
        [sys.executable, "-m", "derivative", "check", path],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith(f"{path}:6:115: error: ")


# --------------------------------------------------------------------------- long runs


def run_of(op: str, n: int, operand: str = "x") -> str:
    return f" {op} ".join([operand] * n)


def only_expr(path: str) -> object:
    code, out, err = cli("parse", "--json", path)
    assert code == 0, err[-2000:]
    doc = json.loads(out)
    return doc["obligations"][0]["ast"]


@pytest.mark.parametrize(
    ("expr", "op", "count"),
    [
        (run_of("+", 260) + " >= 0", "+", 260),  # the sheet that was exit 70
        (run_of("+", 5_000) + " >= 0", "+", 5_000),
        (run_of("*", 1_000, "1") + " * x >= 0", "*", 1_001),
        (run_of("+", 1_000, "s") + ' == ""', "+", 1_000),
        (run_of("and", 20_000, "b"), "and", 20_000),
        (run_of("or", 5_000, "x > 3"), "or", 5_000),
    ],
    ids=["sum-260", "sum-5000", "product-1001", "concat-1000", "and-20000", "or-5000"],
)
def test_long_runs_are_one_node_and_feasible(
    tmp_path: Path, expr: str, op: str, count: int
) -> None:
    path = write(tmp_path, "long.req", HEAD + PREFIX + expr + "\n")
    node = only_expr(path)
    assert isinstance(node, dict)
    run = node if node["kind"] in ("binop", "boolop") else node["operands"][0]
    assert run["op"] == op and len(run["operands"]) == count
    code, out, err = cli("check", path)
    assert code == 0, err[-2000:]
    assert "feasible" in out


def test_long_runs_are_certified_and_the_certificate_rechecks(tmp_path: Path) -> None:
    """Infeasible because of a 300-term sum and a 5,000-operand conjunction (``x`` is 0 by
    the one, at least 1 by the other): the core, the
    SMT-LIB of the certificate and the independent re-check all take the runs whole."""
    text = (
        HEAD
        + PREFIX + run_of("+", 300) + " <= 299\n"
        + "requirement Q: " + run_of("and", 5_000, "x >= 1") + "\n"
    )  # fmt: skip
    path = write(tmp_path, "infeasible.req", text)
    cert = str(tmp_path / "cert.json")
    code, out, err = cli("check", path, "--certificate", cert)
    assert code == 3, err[-2000:]
    assert "R" in out and "Q" in out
    code, out, err = cli("certificate", "verify", cert, "--spec", path)
    assert code == 0, (out + err)[-2000:]


def test_long_runs_become_tests_that_pass_and_compile(tmp_path: Path) -> None:
    text = (
        "spec deep version 1\n\n"
        "function total(x: int in 0..10, s: str) -> int\n"
        "    requires: " + run_of("and", 2_000, "x >= 0") + "\n"
        "    ensures: result == " + run_of("+", 300) + "\n"
        "    ensures: result * 0 + len(" + run_of("+", 300, "s") + ") >= 0\n"
    )  # fmt: skip
    path = write(tmp_path, "long.req", text)
    target = write(tmp_path, "total.py", "def total(x, s):\n    return 300 * x\n")
    module = tmp_path / "test_total.py"
    code, _, err = cli("tests", path, "--target", target, "-o", str(module))
    assert code == 0, err[-2000:]
    compile(module.read_text(encoding="utf-8"), str(module), "exec")
    code, out, err = cli("tests", path, "--target", target)
    assert code == 0, (out + err)[-3000:]


# --------------------------------------------------------------------------- at the limit


def _exactly(target: int, make: Callable[[int], str]) -> str:
    """``make(k)`` for the largest ``k`` whose expression is at most ``target`` levels deep
    (and at least ``target - 1``: some forms grow two levels a step)."""
    best: tuple[int, str] | None = None
    for k in range(target + 1):
        text = make(k)
        try:
            loaded = api.parse_text(HEAD + PREFIX + text + "\n", "probe.req")
        except DerivativeError:
            break
        levels = depth(loaded.contract.obligations[0].expr)
        if levels > target:
            break
        best = (levels, text)
    assert best is not None and best[0] >= target - 1, best
    return best[1]


NESTINGS: dict[str, Callable[[int], str]] = {
    "not": lambda k: "not " * k + "x >= 0",
    "unary minus": lambda k: "-" * k + "x <= 100",
    "subtraction": lambda k: "x" + " - (x" * k + ")" * k + " <= 100",
    "if": lambda k: "(" + "if b then x else " * k + "x) >= 0",
    "implies": lambda k: "b implies " * k + "b",
    "calls": lambda k: "abs(" * k + "x" + ")" * k + " >= 0",
    "forall": lambda k: "".join(f"forall i{j} in 0..0: " for j in range(k)) + "x >= 0",
    "lists": lambda k: "len(" + "[" * (k + 1) + "x" + "]" * (k + 1) + ") >= 0",
    "indexing": lambda k: "[" * k + "x" + "]" * k + "[0]" * k + " >= 0",
    "sums of products": lambda k: "(" * k + "x" + " * 1 + 0)" * k + " >= 0",
    "and of or": lambda k: "(x >= 0 or (b and " * k + "b" + "))" * k,
}


@pytest.mark.parametrize("kind", sorted(NESTINGS))
def test_every_command_handles_nesting_at_the_limit(tmp_path: Path, kind: str) -> None:
    """A requirement of exactly ``MAX_DEPTH`` levels and a function whose ensures is one
    level below it: parse --json, check (Z3), and tests (written, compiled, and run with
    the evaluator judging a correct implementation).  Each expression has one value for
    every input, so the implementation returns that constant."""
    expr = _exactly(MAX_DEPTH, NESTINGS[kind])
    inner = _exactly(MAX_DEPTH - 1, NESTINGS[kind])
    value = evaluate(
        api.parse_text(HEAD + PREFIX + inner + "\n", "v.req").contract.obligations[0].expr,
        {"x": 0, "b": True},
    )
    text = (
        HEAD + PREFIX + expr + "\n"
        + "function f(x: int in 0..10, b: bool) -> bool\n"
        + f"    ensures: result == ({inner})\n"
    )  # fmt: skip
    path = write(tmp_path, "limit.req", text)
    code, out, err = cli("parse", "--json", path)
    assert code == 0, err[-2000:]
    code, out, err = cli("check", path)
    assert code in (0, 3), err[-2000:]
    target = write(tmp_path, "f.py", f"def f(x, b):\n    return {value!r}\n")
    module = tmp_path / "test_limit.py"
    code, _, err = cli("tests", path, "--target", target, "-o", str(module))
    assert code == 0, err[-2000:]
    compile(module.read_text(encoding="utf-8"), str(module), "exec")
    code, out, err = cli("tests", path, "--target", target, "--examples", "10")
    assert code == 0, (out + err)[-3000:]


def test_a_run_is_built_in_the_one_canonical_form() -> None:
    """``(a + b) + c`` is ``a + b + c``; ``a + (b + c)`` is not (``+`` is not associative on
    dates or floats); ``and``/``or`` splice a bracketed run wherever it stands."""

    def expr(text: str) -> Any:
        """The expression without its positions (they differ with the brackets)."""
        parsed = api.parse_text(HEAD + PREFIX + text + "\n", "c.req").contract.obligations[0]
        return parsed.expr.model_dump(mode="json")

    left = expr("(x + x) + x >= 0")
    flat = expr("x + x + x >= 0")
    assert left == flat
    assert len(flat["operands"][0]["operands"]) == 3
    right = expr("x + (x + x) >= 0")
    assert right != flat
    spellings = ("b and b and b and b", "(b and b) and (b and b)", "b and (b and (b and b))")
    ands = [expr(t) for t in spellings]
    assert ands[0] == ands[1] == ands[2]
    assert ands[0]["kind"] == "boolop" and len(ands[0]["operands"]) == 4
    mixed = expr("x + x - x + x >= 0")["operands"][0]
    assert mixed["op"] == "+" and len(mixed["operands"]) == 2
    assert mixed["operands"][0]["op"] == "-"
    assert api.parse_text(HEAD + PREFIX + "(x + x) + x >= 0\n", "a.req").identity == (
        api.parse_text(HEAD + PREFIX + "x + x + x >= 0\n", "b.req").identity
    )


INFEASIBLE: dict[str, Callable[[int], str]] = {
    "unary minus": lambda k: "-" * k + "x > 10",
    "subtraction": lambda k: "x" + " - (x" * k + ")" * k + " > 10",
    "if": lambda k: "(" + "if b then x else " * k + "x) > 10",
    "forall": lambda k: "".join(f"forall i{j} in 0..0: " for j in range(k)) + "x > 10",
}


@pytest.mark.parametrize("kind", sorted(INFEASIBLE))
def test_a_certificate_at_the_limit_rechecks(tmp_path: Path, kind: str) -> None:
    """A contradiction ``MAX_DEPTH`` levels deep (``x`` is at most 10): the certificate's
    JSON, its SMT-LIB and the independent re-check (a fresh parse and fresh solver
    processes) all take it."""
    expr = _exactly(MAX_DEPTH, INFEASIBLE[kind])
    path = write(tmp_path, "limit.req", HEAD + PREFIX + expr + "\n")
    cert = str(tmp_path / "cert.json")
    code, _, err = cli("check", path, "--certificate", cert)
    assert code == 3, err[-2000:]
    code, out, err = cli("certificate", "verify", cert, "--spec", path)
    assert code == 0, (out + err)[-2000:]
