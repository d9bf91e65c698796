"""The argparse glue of the CLI: the command table's row type and the parser it builds.

A parser reports instead of exiting (``ArgumentsError`` for a wrong flag, ``Exit`` for
``--help``/``--version``), so only ``main`` decides what happens, and it writes to the
streams it is given, so tests see exactly what a user sees.  Each command declares its
arguments only when the command line names it: declaring them reads the defaults of the
API's options classes, which live in the heavy layers, and ``derivative parse`` must not
import the sandbox to build the ``run`` command's flags.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn, TextIO

from derivative import __version__
from derivative._errors import EXIT_LABELS, UsageError
from derivative._record import record

__all__ = ["ArgumentsError", "Command", "CommandRun", "Exit", "build_parser", "parse_command_line"]

CommandRun = Callable[[argparse.Namespace, TextIO, TextIO], int]
"""A command's body: ``(args, stdout, stderr) -> exit code``; it never exits or prints."""


@record
class Command:
    """One CLI command: its words, a one-line help, and the module (under ``derivative.cli``)
    that declares its arguments and holds its body, imported only when needed."""

    path: tuple[str, ...]
    help: str
    module: str | Any
    """A module name under ``derivative.cli``, or an object with the two functions (tests)."""
    help_name: str = "HELP"
    arguments_name: str = "arguments"
    run_name: str = "run"

    def load(self) -> Any:
        if not isinstance(self.module, str):
            return self.module
        return importlib.import_module(f"derivative.cli.{self.module}")

    @property
    def arguments(self) -> Callable[[argparse.ArgumentParser], None]:
        declare: Callable[[argparse.ArgumentParser], None] = getattr(self.load(),
                                                                     self.arguments_name)
        return declare

    @property
    def run(self) -> CommandRun:
        body: CommandRun = getattr(self.load(), self.run_name)
        return body

    def __call__(self, args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
        """Run the command (its module imported now)."""
        return self.run(args, stdout, stderr)


class ArgumentsError(UsageError):
    """A wrong flag or a missing argument, with the usage line of the command concerned."""

    def __init__(self, message: str, usage: str) -> None:
        super().__init__(message)
        self.usage = usage

    def render(self) -> str:
        return f"{self.usage.rstrip()}\nerror: {self}"


class Exit(Exception):
    """argparse finished early on purpose (``--help``, ``--version``)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports instead of exiting and writes to given streams."""

    def __init__(
        self, *args: Any, stdout: TextIO | None = None, stderr: TextIO | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._stdout = stdout
        self._stderr = stderr

    def error(self, message: str) -> NoReturn:
        raise ArgumentsError(message, self.format_usage())

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._print_message(message, None)
        raise Exit(status)

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse names sys.stdout for help and the version, and nothing (stderr) else
        if message:
            if file is sys.stdout:
                (self._stdout or sys.stdout).write(message)
            else:
                (self._stderr or sys.stderr).write(message)


def _named_words(argv: Sequence[str]) -> list[str]:
    """The words of a command line that can name a command (flags and options skipped)."""
    return [word for word in argv if not word.startswith("-")]


def build_parser(
    commands: Sequence[Command],
    groups: Mapping[tuple[str, ...], str],
    *,
    argv: Sequence[str] | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> argparse.ArgumentParser:
    """The argument parser for ``commands``; each command's body lands in ``args.run``.

    With ``argv``, only the command it names declares its arguments (the others are
    listed with their help line, which is all ``--help`` shows of them); without, all do.
    """
    streams: dict[str, Any] = {"stdout": stdout, "stderr": stderr}
    epilog = "exit codes: " + ", ".join(f"{int(c)} {w}" for c, w in EXIT_LABELS.items())
    root = _Parser(
        prog="derivative",
        description="Check requirement sets for contradictions and test code against them.",
        epilog=epilog,
        **streams,
    )
    root.add_argument("--version", action="version", version=f"derivative {__version__}")
    named = _named_words(argv) if argv is not None else None
    subparsers: dict[tuple[str, ...], argparse._SubParsersAction[argparse.ArgumentParser]] = {}

    def subparsers_of(
        prefix: tuple[str, ...], parser: argparse.ArgumentParser
    ) -> argparse._SubParsersAction[argparse.ArgumentParser]:
        if prefix not in subparsers:
            subparsers[prefix] = parser.add_subparsers(
                dest="command_" + "_".join(prefix) if prefix else "command",
                metavar="COMMAND",
                required=True,
            )
        return subparsers[prefix]

    parsers: dict[tuple[str, ...], argparse.ArgumentParser] = {(): root}
    for command in commands:
        for depth in range(1, len(command.path)):
            prefix = command.path[:depth]
            if prefix not in parsers:
                help_text = groups.get(prefix, "")
                parsers[prefix] = subparsers_of(prefix[:-1], parsers[prefix[:-1]]).add_parser(
                    prefix[-1], help=help_text, description=help_text, **streams
                )
        sub = subparsers_of(command.path[:-1], parsers[command.path[:-1]]).add_parser(
            command.path[-1], help=command.help, description=command.help, **streams
        )
        if named is None or tuple(named[: len(command.path)]) == command.path:
            command.arguments(sub)
        sub.set_defaults(run=command, command_usage=sub.format_usage)
    return root


def parse_command_line(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, except that a word no parser knows is reported with the
    usage of the command it was given to (``derivative check --bogus`` shows ``check``'s
    usage, not the top level's): argparse leaves such words to the top-level parser."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        usage = getattr(args, "command_usage", None) or parser.format_usage
        raise ArgumentsError(f"unrecognized arguments: {' '.join(extras)}", usage())
    return args
