"""The ``derivative`` command line: ``main(argv)`` and the table of its commands.

Every command is a function ``(args, stdout, stderr) -> int`` returning an exit code from
the one table, ``derivative._errors.ExitCode``; it writes to the streams it is given and
never exits, so tests drive exactly what users run.  Each command lives in its own module
(``_parse``, ``_check``, ``_certificate``, ``_run``, ``_tests``, ``_validate_code``,
``_sandbox``) with a function declaring its arguments, and calls the public API
(``derivative.api``) or a layer's face, never a layer's internals.  The arguments several
commands share are declared once (``_arguments``), with defaults read from the API's
options classes.

Only ``main`` turns what happened into an exit code: bad input (a ``DerivativeError``) is
rendered as ``file:line:col: error: ...`` with a caret and the error's exit code; a bug (an
``InternalError`` or any other exception) as two lines and a crash report (exit 70).
Adding a command means one module with ``arguments`` and ``run``, and one row below; a
path of two words makes a nested command, whose group takes its help text from ``GROUPS``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, Any, TextIO

from derivative._errors import DerivativeError, ExitCode, InternalError

from . import (
    _batch,
    _build,
    _certificate,
    _check,
    _ledger,
    _package,
    _parse,
    _run,
    _sandbox,
    _tests,
    _validate_code,
)
from ._crash import CRASH_DIR_ENV, report_crash, silence_stdout
from ._parser import ArgumentsError, Command, CommandRun, Exit, build_parser, parse_command_line

__all__ = [
    "COMMANDS",
    "CRASH_DIR_ENV",
    "GROUPS",
    "ArgumentsError",
    "Command",
    "CommandRun",
    "build_parser",
    "main",
]

COMMANDS: tuple[Command, ...] = (
    Command(("parse",), _parse.HELP, _parse.arguments, _parse.run),
    Command(("check",), _check.HELP, _check.arguments, _check.run),
    Command(("sandbox", "build-image"), _sandbox.BUILD_IMAGE_HELP,
            _sandbox.build_image_arguments, _sandbox.run_build_image),
    Command(("sandbox", "doctor"), _sandbox.DOCTOR_HELP,
            _sandbox.doctor_arguments, _sandbox.run_doctor),
    Command(("tests",), _tests.HELP, _tests.arguments, _tests.run),
    Command(("run",), _run.HELP, _run.arguments, _run.run),
    Command(("build",), _build.HELP, _build.arguments, _build.run),
    Command(("batch",), _batch.HELP, _batch.arguments, _batch.run),
    Command(("package", "verify"), _package.HELP, _package.arguments, _package.run),
    Command(("ledger", "status"), _ledger.STATUS_HELP, _ledger.status_arguments,
            _ledger.run_status),
    Command(("ledger", "log"), _ledger.LOG_HELP, _ledger.log_arguments, _ledger.run_log),
    Command(("certificate", "verify"), _certificate.HELP, _certificate.arguments,
            _certificate.run),
    Command(("validate-code",), _validate_code.HELP, _validate_code.arguments,
            _validate_code.run),
)
"""Every command users can run, in the order ``derivative --help`` lists them."""

GROUPS: dict[tuple[str, ...], str] = {
    ("certificate",): "work with infeasibility certificates",
    ("sandbox",): _sandbox.GROUP_HELP,
    ("package",): _package.GROUP_HELP,
    ("ledger",): _ledger.GROUP_HELP,
}
"""Help texts of command groups (the first words of multi-word commands)."""


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    stdin: IO[Any] | None = None,
) -> int:
    """Run the CLI on ``argv`` (default: the process's arguments); return the exit code.

    ``stdout``, ``stderr`` and ``stdin`` default to ``sys.stdout``, ``sys.stderr`` and
    ``sys.stdin`` at the call; a command reads ``stdin`` only for a file named ``-``.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    try:
        parser = build_parser(COMMANDS, GROUPS, argv=arguments, stdout=out, stderr=err)
        args = parse_command_line(parser, arguments)
        args.stdin = sys.stdin if stdin is None else stdin
        return int(args.run(args, out, err))
    except Exit as done:
        return done.status
    except InternalError as exc:
        report_crash(exc, arguments, err)
        return ExitCode.INTERNAL.value
    except DerivativeError as exc:
        err.write(exc.render().rstrip("\n") + "\n")
        return int(exc.exit_code)
    except KeyboardInterrupt:
        err.write("interrupted\n")
        return ExitCode.INTERRUPTED.value
    except BrokenPipeError:
        silence_stdout()
        return ExitCode.BROKEN_PIPE.value
    except Exception as exc:
        report_crash(exc, arguments, err)
        return ExitCode.INTERNAL.value
