"""The standalone pytest module, the pytest plugin and the ``derivative tests`` command.

The written module must run with pytest and Hypothesis only (``derivative`` is made
unimportable while it runs), name one test per obligation by its id, carry the
solver-chosen inputs as ``@example``s, pass a correct implementation and fail a wrong
one, a racy one included (it carries the interleaving explorer).  The plugin must name
its items by obligation id and fail exactly the broken ones.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from derivative.api import load
from derivative.forge.codegen._embed import (
    CONCURRENT_FILE,
    RUNTIME_FILE,
    carried_names,
    concurrent_source,
    explorer_source,
    runtime_source,
    strip_annotations,
)
from derivative.forge.codegen._generate import generate_module, relative_target
from derivative.forge.codegen._generate import test_name as name_of_test
from derivative.forge.codegen._python import pyname

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
PASSWORD = ROOT / "examples" / "password_policy.req"
CANDIDATES = ROOT / "examples" / "candidates"
EXPLORER = ROOT / "forge" / "inside" / "_explore.py"
ALLOWED_IMPORTS = set(sys.stdlib_module_names) | {"hypothesis"}
"""The standard library (the carried explorer uses threads, dis, heapq, ...) and Hypothesis."""

GOOD = '''
import enum, itertools, threading
class Outcome(enum.Enum):
    ok = 1
    rejected = 2
    expired = 3
MIN_LENGTH = 12
def is_strong(password):
    return len(password) >= MIN_LENGTH
def parse_minutes(text):
    if not (text.isascii() and text.isdigit()):
        raise ValueError(text)
    return int(text)
class TokenStore:
    def __init__(self):
        self.used = {}
        self.ids = itertools.count()
        self.lock = threading.Lock()
    def issue(self, user):
        token = f"t{next(self.ids)}"
        self.used[token] = False
        return token
    def reset(self, token, password):
        if not password:
            raise ValueError("empty")
        if len(password) < MIN_LENGTH:
            return Outcome.rejected
        with self.lock:
            if self.used.get(token, True):
                return Outcome.expired
            self.used[token] = True
        return Outcome.ok
    def forget(self, token):
        self.used.pop(token, None)
'''


@pytest.fixture(scope="module")
def password_module() -> str:
    return generate_module(load([PASSWORD]).types, "impl.py", examples=15, steps=8)


def _write_project(folder: Path, module: str, impl: str) -> None:
    (folder / "test_generated.py").write_text(module, encoding="utf-8")
    (folder / "impl.py").write_text(impl, encoding="utf-8")
    # The generated module must not need derivative: make it unimportable.
    (folder / "conftest.py").write_text("import sys\nsys.modules['derivative'] = None\n",
                                        encoding="utf-8")


def _pytest(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    drop = ("PYTHONPATH", "DERIVATIVE_TARGET")
    clean = {k: v for k, v in os.environ.items() if k not in drop}
    clean.update(env or {})
    quiet = [] if "-v" in args else ["-q"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *quiet, "-p", "no:cacheprovider",
         "--rootdir", str(folder), *args],
        cwd=folder, capture_output=True, text=True, env=clean, timeout=600,
    )


# --------------------------------------------------------------------------- the module


def test_the_module_is_standalone_and_names_tests_by_obligation(password_module: str) -> None:
    tree = ast.parse(password_module)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= ALLOWED_IMPORTS, imported - ALLOWED_IMPORTS
    tests = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
             and n.name.startswith("test_")}
    expected = {"test_S1", "test_X1", "test_X2", "test_parse_minutes__raises__ValueError",
                "test_parse_minutes__ensures__02b9d9", "test_W1", "test_single_use",
                "test_TokenStore__reset__raises__ValueError", "test_TokenStore__issue__returns",
                "test_TokenStore__forget__returns"}
    assert tests == expected


def test_solver_inputs_are_examples_and_obligations_are_python(password_module: str) -> None:
    # The boundary of len(password) <= 128 and of len(password) >= MIN_LENGTH.
    assert "# hits len(password) - 128 == 0" in password_module
    assert "# hits len(password) - MIN_LENGTH == -1" in password_module
    assert "return (result == (len(password) >= MIN_LENGTH))" in password_module
    assert "def S1__check(password, result):" in password_module
    assert '"""S1 "length decides" (' in password_module


@pytest.mark.slow
def test_the_module_passes_a_correct_and_fails_a_wrong_implementation(
    tmp_path: Path, password_module: str
) -> None:
    _write_project(tmp_path, password_module, GOOD)
    ok = _pytest(tmp_path)
    assert ok.returncode == 0, ok.stdout[-3000:]
    assert "10 passed" in ok.stdout
    (tmp_path / "wrong.py").write_text(GOOD.replace(">= MIN_LENGTH", "> MIN_LENGTH"),
                                       encoding="utf-8")
    bad = _pytest(tmp_path, env={"DERIVATIVE_TARGET": str(tmp_path / "wrong.py")})
    assert bad.returncode == 1
    assert "FAILED test_generated.py::test_S1" in bad.stdout
    assert "is_strong(password=" in bad.stdout and "required:" in bad.stdout


def test_the_header_says_the_module_carries_the_explorer(password_module: str) -> None:
    header = ast.get_docstring(ast.parse(password_module)) or ""
    assert "hammered under concurrency" in header
    assert "carried below: this module does not import derivative" in header
    assert "\n".join(explorer_source().splitlines()[:3]) in password_module
    assert "    hammer('TokenStore', TOKENSTORE_OPS, TOKENSTORE_COUNTS, 'single_use', " \
        "TOKENSTORE_FROM)" in password_module
    assert "TOKENSTORE_FROM = {'issue': {}, 'reset': {'token': 'issue'}, " \
        "'forget': {'token': 'issue'}}" in password_module


def test_a_module_without_count_bounds_carries_no_explorer() -> None:
    module = generate_module(load([CORPUS / "wrong_exception_type" / "spec.req"]).types,
                             "impl.py", examples=15, steps=8)
    assert "interleaving explorer" not in module and "def hammer(" not in module
    assert "hammered under concurrency" not in module


@pytest.mark.slow
def test_the_module_fails_a_racy_store_under_interleavings_and_passes_a_locked_one(
    tmp_path: Path, password_module: str
) -> None:
    """The check-then-set race of password_policy_racy.py: sequential calls never see it;
    the written module explores the interleavings of two resets of one token."""
    racy = (CANDIDATES / "password_policy_racy.py").read_text(encoding="utf-8")
    _write_project(tmp_path, password_module, racy)
    bad = _pytest(tmp_path, "-p", "no:derivative")
    assert bad.returncode == 1, bad.stdout[-3000:]
    failed = [line for line in bad.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1, bad.stdout[-3000:]
    assert failed[0].startswith("FAILED test_generated.py::test_single_use - AssertionError")
    assert 'single_use "one reset per token" (' in bad.stdout
    assert "failed under concurrency" in bad.stdout
    assert "thread 1: s.reset(token=r1, password=" in bad.stdout
    assert "got:      the count reached 2" in bad.stdout
    assert "preempts thread 1 before POP_JUMP_FORWARD_IF_FALSE at impl.py:46" in bad.stdout
    assert "9 passed" in bad.stdout
    good = _pytest(tmp_path, "-p", "no:derivative",
                   env={"DERIVATIVE_TARGET": str(CANDIDATES / "password_policy.py")})
    assert good.returncode == 0, good.stdout[-3000:]
    assert "10 passed" in good.stdout


@pytest.mark.slow
@pytest.mark.parametrize("case", ["wrong_exception_type", "enum_as_strings",
                                  "bank_withdraw_limit", "lookalike_builtin_exception",
                                  "token_store_race"])
def test_written_modules_catch_corpus_bugs(tmp_path: Path, case: str) -> None:
    folder = CORPUS / case
    module = generate_module(load([folder / "spec.req"]).types, "impl.py", examples=15, steps=8)
    _write_project(tmp_path, module, (folder / "correct.py").read_text(encoding="utf-8"))
    assert _pytest(tmp_path).returncode == 0
    wrong = _pytest(tmp_path, env={"DERIVATIVE_TARGET": str(folder / "wrong.py")})
    assert wrong.returncode == 1, wrong.stdout[-2000:]


def test_names() -> None:
    assert pyname("class") == "class_" and pyname("len") == "len_" and pyname("x") == "x"
    assert pyname("_x") == "_x_"
    # The top-level names of the carried code: a constant must not replace one of them.
    assert pyname("time") == "time_" and pyname("judge") == "judge_"
    assert pyname("runs") == "runs_" and pyname("hammer") == "hammer_"
    assert name_of_test("parse_minutes.raises.ValueError") == (
        "test_parse_minutes__raises__ValueError"
    )
    assert name_of_test("a-b") == "test_a_b"
    assert relative_target("pkg.mod", "/x/out.py") == "pkg.mod"
    assert relative_target("/a/b/impl.py", "/a/tests/test_x.py") == "../b/impl.py"


class _Unannotate(ast.NodeTransformer):
    """What taking the annotations out must amount to, on the syntax tree."""

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        node.returns = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.Assign:
        assert node.value is not None, "an annotation without a value cannot be taken out"
        return ast.Assign(targets=[node.target], value=node.value)


def test_the_carried_runtime_is_the_runtime_module_without_annotations() -> None:
    text = RUNTIME_FILE.read_text(encoding="utf-8")
    _, marker, body = text.partition("RUNTIME STARTS\n")
    assert marker
    expected = _Unannotate().visit(ast.parse(body))
    assert ast.dump(ast.parse(runtime_source())) == ast.dump(expected)
    assert strip_annotations(
        "def f(a: int, /, b: str = 'x', *c: int, d: int = 1, **e: object) -> None:\n"
        "    x: int = a  # kept\n"
        "    def g(\n        y: int,\n    ) -> int:\n        return y\n"
        "    return None\n"
    ) == (
        "def f(a, /, b='x', *c, d=1, **e):\n"
        "    x = a  # kept\n"
        "    def g(y):\n        return y\n"
        "    return None\n"
    )


def test_the_carried_hammer_and_explorer_are_the_modules_as_written() -> None:
    text = CONCURRENT_FILE.read_text(encoding="utf-8")
    _, marker, body = text.partition("RUNTIME STARTS\n")
    assert marker
    expected = _Unannotate().visit(ast.parse(body))
    assert ast.dump(ast.parse(concurrent_source())) == ast.dump(expected)
    explorer = EXPLORER.read_text(encoding="utf-8")
    assert explorer_source() == explorer.replace("from __future__ import annotations\n", "", 1) \
        .removeprefix("# derivative: stdlib-only\n").strip("\n")


def test_no_carried_name_is_defined_twice() -> None:
    """The runtime, the hammer and the explorer share one module namespace."""
    seen: dict[str, str] = {}
    for label, source in (("runtime", runtime_source()), ("hammer", concurrent_source()),
                          ("explorer", explorer_source())):
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            else:
                continue
            for name in names:
                assert seen.setdefault(name, label) == label, (name, seen[name], label)
    assert {"hammer", "runs", "SystemRun", "WITNESSES"} <= carried_names()


# --------------------------------------------------------------------------- the plugin


@pytest.mark.slow
def test_the_plugin_makes_one_item_per_obligation(tmp_path: Path) -> None:
    (tmp_path / "impl.py").write_text(GOOD.replace(">= MIN_LENGTH", "> MIN_LENGTH"),
                                      encoding="utf-8")
    (tmp_path / "password_policy.req").write_text(PASSWORD.read_text(encoding="utf-8"),
                                                  encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT)}
    # The installed package registers the plugin through its pytest11 entry point (named
    # "derivative"); block that one and load the module by name, so the test reads this
    # checkout whether or not (and wherever) the package is installed.
    args = ["-p", "no:derivative", "-p", "derivative.forge.testing._pytest_plugin",
            "--req", "password_policy.req",
            "--req-target", "impl.py", "--req-examples", "15"]
    run = _pytest(tmp_path, *args, "-v", env=env)
    assert run.returncode == 1
    for oid in ("X1", "W1", "single_use", "parse_minutes.raises.ValueError",
                "TokenStore.issue.returns"):
        # pytest shows the dots of a node name as `::` in its verbose listing.
        shown = oid.replace(".", "::")
        assert f"password_policy.req::{shown} PASSED" in run.stdout, run.stdout[-3000:]
    assert "password_policy.req::S1 FAILED" in run.stdout
    failed = [line for line in run.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1 and "S1" in failed[0], run.stdout[-2000:]
    assert "12 passed" in run.stdout
    one = _pytest(tmp_path, *args, "-k", "W1", env=env)
    assert one.returncode == 0 and "1 passed" in one.stdout


# --------------------------------------------------------------------------- the command


def _cli(argv: list[str]) -> int:
    """``derivative ARGV`` in this process, exactly as users run it."""
    from derivative.cli import main

    return main(argv)


def test_the_command_writes_a_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl = tmp_path / "impl.py"
    impl.write_text(GOOD, encoding="utf-8")
    out = tmp_path / "tests" / "test_pw.py"
    out.parent.mkdir()
    assert _cli(["tests", str(PASSWORD), "--target", str(impl), "-o", str(out),
                 "--examples", "10"]) == 0
    assert "wrote" in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert "TARGET = '../impl.py'" in text and "max_examples=EXAMPLES" in text


def test_the_command_runs_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    impl = tmp_path / "impl_cli.py"
    impl.write_text(GOOD, encoding="utf-8")
    assert _cli(["tests", str(PASSWORD), "--target", str(impl), "--examples", "10",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "derivative.run/v1" and doc["status"] == "passed"
    bad = tmp_path / "impl_bad.py"
    bad.write_text(GOOD.replace("if not password:", "if False:"), encoding="utf-8")
    assert _cli(["tests", str(PASSWORD), "--target", str(bad), "--examples", "10"]) == 1
    assert "TokenStore.reset.raises.ValueError" in capsys.readouterr().out


def test_the_command_reports_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "bad.req"
    spec.write_text("spec b version 1\nfunction f(x: int) -> int\n    ensures: result == y\n",
                    encoding="utf-8")
    assert _cli(["tests", str(spec), "--target", "impl.py"]) == 2
    assert f"{spec}:3:" in capsys.readouterr().err
    assert _cli(["tests", str(PASSWORD), "--target", str(tmp_path / "none.py")]) == 2
    assert _cli(["tests", str(PASSWORD), "--target", "impl.py", "--examples", "0"]) == 2
    assert "argument --examples: must be at least 1" in capsys.readouterr().err
