"""The ``derivative`` command line.

Every command is a plain function ``run(args) -> int`` that returns an exit code
(CERTIFICATES.md §1) and is registered, together with a function that declares its
arguments, in the ``COMMANDS`` table.  Only ``main`` turns what happened into an
exit code, and only the console-script wrapper and ``__main__`` actually exit, so
the whole CLI can be driven in-process by tests.

Adding a command means writing two small functions and one table row::

    def _verify_arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("file")

    def run_verify(args: argparse.Namespace) -> int:
        ...
        return EXIT_OK

    Command(("certificate", "verify"), "check a certificate independently",
            _verify_arguments, run_verify)

A path of two words makes a nested command (``derivative certificate verify``); the
group's own help text comes from ``GROUPS``.  Bigger families of commands live in
their own ``derivative/_cli_<family>.py`` module (part of the CLI layer, like this one)
and contribute rows here.

Exit codes: 0 success, 1 a "no" backed by evidence, 2 bad input (spec errors,
missing files, wrong flags: a message, never a traceback), 3 infeasible, 4 sandbox
unavailable, 5 sandbox policy violation, 6 unknown, 70 internal error (a short
message and the file holding the full traceback).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from derivative import (
    __version__,
    _cli_certificate,
    _cli_check,
    _cli_run,
    _cli_sandbox,
    _cli_tests,
    _cli_validate,
)
from derivative._errors import DerivativeError, UsageError

EXIT_OK = 0
EXIT_NO = 1
EXIT_BAD_INPUT = 2
EXIT_INFEASIBLE = 3
EXIT_SANDBOX_UNAVAILABLE = 4
EXIT_POLICY_VIOLATION = 5
EXIT_UNKNOWN = 6
EXIT_INTERNAL = 70
EXIT_OPERATIONAL_TIMEOUT = 75
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

CRASH_DIR_ENV = "DERIVATIVE_CRASH_DIR"
"""Environment variable naming the folder for crash reports (default ``./.derivative``)."""


# --------------------------------------------------------------------------- argparse glue


class ArgumentsError(UsageError):
    """A wrong flag or a missing argument, with the usage line of the command concerned."""

    def __init__(self, message: str, usage: str) -> None:
        super().__init__(message)
        self.usage = usage

    def render(self) -> str:
        return f"{self.usage.rstrip()}\nerror: {self}"


class _Exit(Exception):
    """argparse finished early on purpose (``--help``, ``--version``)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports instead of exiting, so that only ``main`` decides."""

    def error(self, message: str) -> NoReturn:
        raise ArgumentsError(message, self.format_usage())

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise _Exit(status)


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Command:
    """One CLI command: its words, a one-line help, its arguments and its body."""

    path: tuple[str, ...]
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# --------------------------------------------------------------------------- parse


def _parse_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("specs", nargs="+", metavar="SPEC", help="the .req files of one requirement set")
    p.add_argument(
        "--json",
        action="store_true",
        help="print the derivative.contract/v1 document instead of the summary",
    )


def _counts(kinds: Sequence[str]) -> str:
    counted = Counter(kinds)
    return ", ".join(f"{n} {kind}" for kind, n in counted.items())


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows as text columns separated by two spaces (the last column is not padded)."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join([*(cell.ljust(w) for cell, w in zip(r, widths, strict=False)), r[-1]]).rstrip()
        for r in rows
    ]


def run_parse(args: argparse.Namespace) -> int:
    """Parse and type-check a requirement set; show what was understood."""
    from derivative import api

    loaded = api.load(args.specs)
    if args.json:
        print(json.dumps(api.contract_json(loaded), indent=2, ensure_ascii=False))
        return EXIT_OK
    doc = api.contract_document(loaded)
    lines = [f"spec {doc.spec.name} version {doc.spec.version}"]
    if doc.spec.description:
        lines.append(f'"{doc.spec.description}"')
    lines.append(f"identity      sha256:{doc.spec.sha256}")
    lines.append("files         " + ", ".join(f.path for f in doc.files))
    decl_kinds = [d.kind for d in doc.declarations]
    lines.append(
        f"declarations  {len(decl_kinds)}" + (f" ({_counts(decl_kinds)})" if decl_kinds else "")
    )
    ob_kinds = [o.kind for o in doc.obligations]
    lines.append(f"obligations   {len(ob_kinds)}" + (f" ({_counts(ob_kinds)})" if ob_kinds else ""))
    rows = [
        (o.id, f"{o.file}:{o.line}", o.kind, o.owner or "-", _clause(o.expr, o.exception, o.kind))
        for o in doc.obligations
    ]
    if rows:
        lines.append("")
        lines.extend(_table(rows))
    print("\n".join(lines))
    return EXIT_OK


def _clause(expr: str, exception: str | None, kind: str) -> str:
    if exception is None:
        return expr
    if kind == "raises":
        return f"raises {exception} when {expr}"
    return f"{expr} raises {exception}"


# --------------------------------------------------------------------------- registry

COMMANDS: tuple[Command, ...] = (
    Command(("parse",), "parse and type-check a requirement set", _parse_arguments, run_parse),
    Command(
        ("check",),
        "decide whether a requirement set can hold; prove it when it cannot",
        _cli_check.add_arguments,
        _cli_check.run,
    ),
    Command(
        ("sandbox", "build-image"),
        "build the Docker sandbox image",
        _cli_sandbox.build_image_arguments,
        _cli_sandbox.run_build_image,
    ),
    Command(
        ("sandbox", "doctor"),
        "show what isolation this machine can give, and why",
        _cli_sandbox.doctor_arguments,
        _cli_sandbox.run_doctor,
    ),
    Command(("tests",), _cli_tests.HELP, _cli_tests.arguments, _cli_tests.run),
    Command((_cli_run.NAME,), _cli_run.HELP, _cli_run.add_arguments, _cli_run.run),
    Command(
        _cli_certificate.COMMAND,
        _cli_certificate.HELP,
        _cli_certificate.add_arguments,
        _cli_certificate.run,
    ),
    Command(
        (_cli_validate.NAME,), _cli_validate.HELP, _cli_validate.add_arguments, _cli_validate.run
    ),
)

GROUPS: dict[tuple[str, ...], str] = {
    ("certificate",): "work with infeasibility certificates",
    ("sandbox",): "build and inspect the sandboxes that run candidates",
}
"""Help texts of command groups (the first words of multi-word commands)."""


def build_parser(commands: Sequence[Command] = COMMANDS) -> argparse.ArgumentParser:
    """The argument parser for ``commands``; each command's ``run`` lands in ``args.run``."""
    root = _Parser(
        prog="derivative",
        description="Check requirement sets for contradictions and test code against them.",
        epilog="exit codes: 0 ok, 1 no (with evidence), 2 bad input, 3 infeasible, "
        "4 sandbox unavailable, 5 policy violation, 6 unknown, 70 internal error, "
        "75 operational timeout (a wall-clock safety net fired; try again)",
    )
    root.add_argument("--version", action="version", version=f"derivative {__version__}")
    groups: dict[tuple[str, ...], argparse._SubParsersAction[argparse.ArgumentParser]] = {}

    def subparsers_of(
        prefix: tuple[str, ...], parser: argparse.ArgumentParser
    ) -> argparse._SubParsersAction[argparse.ArgumentParser]:
        if prefix not in groups:
            groups[prefix] = parser.add_subparsers(
                dest="command_" + "_".join(prefix) if prefix else "command",
                metavar="COMMAND",
                required=True,
            )
        return groups[prefix]

    parsers: dict[tuple[str, ...], argparse.ArgumentParser] = {(): root}
    for command in commands:
        for depth in range(1, len(command.path)):
            prefix = command.path[:depth]
            if prefix not in parsers:
                parent = parsers[prefix[:-1]]
                help_text = GROUPS.get(prefix, "")
                parsers[prefix] = subparsers_of(prefix[:-1], parent).add_parser(
                    prefix[-1], help=help_text, description=help_text
                )
        parent = parsers[command.path[:-1]]
        sub = subparsers_of(command.path[:-1], parent).add_parser(
            command.path[-1], help=command.help, description=command.help
        )
        command.arguments(sub)
        sub.set_defaults(run=command.run)
    return root


# --------------------------------------------------------------------------- entry point


def _crash_report_path() -> Path:
    """Where to write a crash report: ``$DERIVATIVE_CRASH_DIR``, ``./.derivative``, or tmp."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    name = f"crash-{stamp}-{os.getpid()}.txt"
    candidates = [os.environ.get(CRASH_DIR_ENV), ".derivative", tempfile.gettempdir()]
    for folder in candidates:
        if not folder:
            continue
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
            path = Path(folder) / name
            path.touch(exist_ok=False)
            return path.resolve()
        except OSError:
            continue
    raise OSError("no writable folder for a crash report")


def _report_crash(exc: BaseException, argv: Sequence[str]) -> None:
    """A short message for the user; the whole traceback in a file for the bug report."""
    detail = "".join(traceback.format_exception(exc))
    summary = f"internal error: {type(exc).__name__}: {exc}"
    try:
        path = _crash_report_path()
        path.write_text(
            f"derivative {__version__}\nargv: {list(argv)!r}\npython: {sys.version}\n\n{detail}",
            encoding="utf-8",
        )
    except OSError:
        sys.stderr.write(f"{summary}\n{detail}")
        return
    sys.stderr.write(f"{summary}\nThis is a bug in derivative. The full traceback is in {path}\n")


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` (default: the process's arguments); return the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(arguments)
        code: int = args.run(args)
        return code
    except _Exit as done:
        return done.status
    except DerivativeError as err:
        sys.stderr.write(err.render().rstrip("\n") + "\n")
        return err.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        _report_crash(exc, arguments)
        return EXIT_INTERNAL
