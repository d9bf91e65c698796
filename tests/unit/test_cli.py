"""The command line: commands as functions returning exit codes, errors as messages.

Everything runs in-process through ``main(argv)``: it must *return* the exit code
(docs/cli.md, "Exit codes") and never raise ``SystemExit`` or show a traceback for bad
input.  One test goes through ``python -m derivative`` to cover the real entry.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import io
import json
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TextIO

import pytest

import derivative
from derivative import api, cli
from derivative._errors import InternalError
from derivative.cli import Command, _parse, build_parser, main

Run = tuple[int, str, str]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "examples").rglob("*.req"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _in_repo_root(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Example paths are given relative to the repository, as a user would type them.
    monkeypatch.chdir(repo_root)


# --------------------------------------------------------------------------- basics


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--version")
    assert (code, out, err) == (0, f"derivative {derivative.__version__}\n", "")


def test_help_lists_the_commands_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "parse" in out and "exit codes" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "required"),
        (("frobnicate",), "invalid choice"),
        (("parse",), "required"),
        (("parse", "--bogus", "examples/discount.req"), "unrecognized arguments: --bogus"),
    ],
)
def test_usage_errors_print_usage_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("usage: derivative")
    assert message in err
    assert "Traceback" not in err


def test_missing_file_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "parse", "no/such/spec.req")
    assert (code, out) == (2, "")
    assert err == "error: no such file: no/such/spec.req\n"


def test_directory_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "parse", "examples")
    assert code == 2 and "is a directory" in err


# --------------------------------------------------------------------------- parse


def test_parse_summary_shows_identity_counts_and_every_obligation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = "examples/password_policy.req"
    code, out, err = run(capsys, "parse", path)
    assert (code, err) == (0, "")
    loaded = api.load([path])
    lines = out.splitlines()
    assert lines[0] == "spec password_policy version 3"
    assert f"identity      sha256:{loaded.identity}" in lines
    assert f"obligations   {len(loaded.obligations)} (" in out
    doc = api.contract_document(loaded)
    for o in doc.obligations:
        row = next(line for line in lines if line.split()[:1] == [o.id])
        cells = row.split()
        assert cells[1] == f"{path}:{o.line}"
        assert cells[2] == o.kind
        assert cells[3] == (o.owner or "-")
        assert o.expr in row
    assert any(line.split()[:1] == ["R1"] and "max_attempts >= 3" in line for line in lines)


def test_parse_json_is_the_contract_document(capsys: pytest.CaptureFixture[str]) -> None:
    path = "examples/password_policy.req"
    code, out, err = run(capsys, "parse", path, "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data == api.contract_json(api.load([path]))
    assert data["format"] == "derivative.contract/v1"
    assert data["spec"]["name"] == "password_policy"
    api.ContractDocument.model_validate(data)


def test_parse_of_a_set_reports_each_obligation_in_its_own_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "parse", "examples/limits/feature.req", "--json")
    assert (code, err) == (0, ""), err
    data = json.loads(out)
    assert data["spec"]["name"] == "remember_me"
    files = {o["id"]: o["file"] for o in data["obligations"]}
    assert files["F1"] == "examples/limits/feature.req"
    assert files["SEC1"] == "examples/limits/policy.req"
    assert {f["path"] for f in data["files"]} == set(files.values())


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_bundled_example_parses(capsys: pytest.CaptureFixture[str], example: str) -> None:
    code, _, err = run(capsys, "parse", example)
    assert (code, err) == (0, "")


def test_syntax_error_points_at_the_place(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = tmp_path / "bad.req"
    spec.write_text("spec bad version 1\nparam x: int\nrequirement R1: x >= \n", encoding="utf-8")
    code, out, err = run(capsys, "parse", str(spec))
    assert (code, out) == (2, "")
    assert err.startswith(f"{spec}:3:")
    assert "error:" in err and "^" in err
    assert "Traceback" not in err


def test_type_error_is_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spec = tmp_path / "typed.req"
    spec.write_text('spec typed version 1\nparam x: int\nrequirement R1: x == "a"\n', "utf-8")
    code, out, err = run(capsys, "parse", str(spec))
    assert (code, out) == (2, "")
    assert f"{spec}:3:" in err and "Traceback" not in err


# --------------------------------------------------------------------------- internal errors


def _boom(paths: object) -> api.LoadedContract:
    raise RuntimeError("boom")


def test_internal_error_exits_70_and_writes_the_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api, "load", _boom)
    monkeypatch.setenv(cli.CRASH_DIR_ENV, str(tmp_path / "crashes"))
    code, out, err = run(capsys, "parse", "examples/discount.req")
    assert (code, out) == (70, "")
    assert err.startswith("internal error: RuntimeError: boom\n")
    assert "Traceback" not in err
    (report,) = (tmp_path / "crashes").glob("crash-*.txt")
    assert str(report) in err
    text = report.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and "RuntimeError: boom" in text
    assert "'parse', 'examples/discount.req'" in text


def test_crash_report_defaults_to_the_state_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api, "load", _boom)
    monkeypatch.delenv(cli.CRASH_DIR_ENV, raising=False)
    spec = Path("examples/discount.req").resolve()
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "parse", str(spec))
    assert code == 70
    (report,) = (tmp_path / ".derivative").glob("crash-*.txt")
    assert str(report) in err


def test_interrupt_exits_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(paths: object) -> api.LoadedContract:
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "load", interrupted)
    code, _, err = run(capsys, "parse", "examples/discount.req")
    assert (code, err) == (130, "interrupted\n")


# --------------------------------------------------------------------------- the command table


def test_the_table_builds_nested_commands() -> None:
    seen: list[str] = []

    def verify_arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("file")

    def run_verify(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
        seen.append(args.file)
        stdout.write("checked\n")
        return 1

    table = (
        *cli.COMMANDS,
        Command(("demo", "verify"), "verify",
                SimpleNamespace(arguments=verify_arguments, run=run_verify)),
    )
    groups = {**cli.GROUPS, ("demo",): "demonstrate"}
    parser = build_parser(table, groups)
    args = parser.parse_args(["demo", "verify", "c.json"])
    out = io.StringIO()
    assert args.run(args, out, io.StringIO()) == 1 and seen == ["c.json"]
    assert out.getvalue() == "checked\n"
    with pytest.raises(cli.ArgumentsError, match="required"):
        parser.parse_args(["demo"])
    assert build_parser(table, groups).parse_args(["parse", "x.req"]).run.run is _parse.run


def test_only_the_named_command_declares_its_arguments() -> None:
    declared: list[str] = []

    def arguments_of(name: str) -> Callable[[argparse.ArgumentParser], None]:
        return lambda p: declared.append(name)

    def nothing(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
        return 0

    table = [Command((n,), n, SimpleNamespace(arguments=arguments_of(n), run=nothing))
             for n in ("a", "b")]
    table.append(Command(("g", "c"), "c", SimpleNamespace(arguments=arguments_of("c"),
                                                          run=nothing)))
    build_parser(table, {("g",): "g"}, argv=["b", "--flag", "x"])
    assert declared == ["b"]
    build_parser(table, {("g",): "g"}, argv=["g", "c"])
    assert declared == ["b", "c"]
    build_parser(table, {("g",): "g"})
    assert declared == ["b", "c", "a", "b", "c"]


def test_parse_imports_no_solver_and_no_sandbox(repo_root: Path) -> None:
    probe = (
        "import sys\nfrom derivative.cli import main\n"
        "assert main(['parse', 'examples/discount.req']) == 0\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=repo_root, capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.splitlines()[-1].split())
    heavy = {"z3", "hypothesis", "docker", "derivative.solver", "derivative.forge.run",
             "derivative.forge.sandbox", "derivative.forge.testing"}
    assert not (loaded & heavy), sorted(loaded & heavy)


def test_every_command_is_registered_once() -> None:
    paths = [c.path for c in cli.COMMANDS]
    assert len(paths) == len(set(paths))
    assert {("parse",), ("sandbox", "doctor"), ("sandbox", "build-image")} <= set(paths)
    for path in paths:
        assert path[:-1] == () or path[:-1] in cli.GROUPS, f"{path}: its group needs a help text"


DOCUMENTED_COMMANDS = {
    ("parse",), ("check",), ("certificate", "verify"), ("validate-code",),
    ("sandbox", "doctor"), ("sandbox", "build-image"), ("run",), ("tests",), ("build",),
    ("package", "verify"), ("ledger", "status"), ("ledger", "log"), ("batch",),
    ("import", "fret"), ("import", "hanfor"),
}


def test_every_documented_command_is_reachable_by_users(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert {c.path for c in cli.COMMANDS} == DOCUMENTED_COMMANDS
    for path in sorted(DOCUMENTED_COMMANDS):
        code, out, err = run(capsys, *path, "--help")
        assert (code, err) == (0, ""), path
        assert out.startswith(f"usage: derivative {' '.join(path)}"), out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in DOCUMENTED_COMMANDS:
        assert f"`derivative {' '.join(path)}" in readme, path


def test_the_cli_reaches_the_layers_only_through_their_faces() -> None:
    # derivative.api, a room's face (derivative.forge.run, derivative.solver, ...), never
    # a layer's underscore module.
    layers = ("grammar", "solver", "certificates", "forge")
    bad = []
    for path in sorted((ROOT / "derivative" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            for name in names:
                parts = name.split(".")
                if (
                    len(parts) > 2 and parts[0] == "derivative" and parts[1] in layers
                    and any(p.startswith("_") for p in parts[2:])
                ):
                    bad.append(f"{path.name}: {name}")
    assert not bad, bad


def test_main_writes_to_the_streams_it_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["parse", "examples/discount.req"], stdout=out, stderr=err) == 0
    assert out.getvalue().startswith("spec discount version 1\n") and err.getvalue() == ""
    out, err = io.StringIO(), io.StringIO()
    assert main(["--version"], stdout=out, stderr=err) == 0
    assert out.getvalue() == f"derivative {derivative.__version__}\n"
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", "--rlimit", "0", "x.req"], stdout=out, stderr=err) == 2
    assert out.getvalue() == "" and err.getvalue().startswith("usage: derivative check")
    assert capsys.readouterr() == ("", "")


def test_an_internal_error_is_a_crash_report_not_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def bug(paths: object) -> api.LoadedContract:
        raise InternalError("an invariant broke")

    monkeypatch.setattr(api, "load", bug)
    monkeypatch.setenv(cli.CRASH_DIR_ENV, str(tmp_path))
    code, out, err = run(capsys, "parse", "examples/discount.req")
    assert (code, out) == (70, "")
    assert err.startswith("internal error: InternalError: an invariant broke\n")
    assert len(list(tmp_path.glob("crash-*.txt"))) == 1


def test_group_without_its_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "sandbox")
    assert code == 2 and err.startswith("usage: derivative sandbox")
    code, out, _ = run(capsys, "sandbox", "--help")
    assert code == 0 and "doctor" in out and "build-image" in out


# --------------------------------------------------------------------------- the real entry points


def test_python_dash_m_runs_the_cli(repo_root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "derivative", "parse", "examples/discount.req"],
        cwd=repo_root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("spec discount version 1\n")
    bad = subprocess.run(
        [sys.executable, "-m", "derivative", "parse", "--nope"],
        cwd=repo_root,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["ledger", "--help"]])
def test_version_and_help_import_nothing_heavy(argv: list[str]) -> None:
    # A requirements checker runs in pre-commit hooks and editors: start-up is the feature.
    # The command table names modules; only the command that runs imports its layers.
    code = ("import io, sys\nfrom derivative.cli import main\n"
            f"main({argv!r}, stdout=io.StringIO(), stderr=io.StringIO())\n"
            "heavy = ('z3', 'cvc5', 'pydantic', 'hypothesis', 'lark', 'distributed', 'docker',"
            " 'derivative.api', 'derivative.grammar', 'derivative.solver', 'derivative.forge')\n"
            "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_the_console_script_answers_version_before_importing_the_cli() -> None:
    # The installed `derivative` runs derivative._cli_entry:main (pyproject.toml): the same
    # answer as the argparse table's, with nothing of the command line imported.
    script = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert script["project"]["scripts"]["derivative"] == "derivative._cli_entry:main"
    code = ("import sys\nsys.argv = ['derivative', '--version']\n"
            "from derivative._cli_entry import main\nstatus = main()\n"
            "print(status, sorted(m for m in sys.modules if m.startswith("
            "('derivative.cli', 'argparse', 'derivative._errors', 'dataclasses'))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout == f"derivative {derivative.__version__}\n0 []\n", done.stdout
    full = io.StringIO()
    assert cli.main(["--version"], stdout=full, stderr=io.StringIO()) == 0
    assert done.stdout.startswith(full.getvalue())
    other = subprocess.run(
        [sys.executable, "-c", "import sys\nsys.argv = ['derivative', 'parse', '--nope']\n"
         "from derivative._cli_entry import main\nraise SystemExit(main())\n"],
        capture_output=True, text=True, timeout=120)
    assert other.returncode == 2 and "usage: derivative parse" in other.stderr, other.stderr

def test_the_command_table_s_help_lines_are_the_modules_own() -> None:
    for command in cli.COMMANDS:
        assert getattr(command.load(), command.help_name) == command.help, command.path
    for prefix, text in cli.GROUPS.items():
        module = {"sandbox": "_sandbox", "package": "_package", "ledger": "_ledger",
                  "import": "_import"}.get(
            prefix[0])
        if module is not None:
            assert text == importlib.import_module(f"derivative.cli.{module}").GROUP_HELP
