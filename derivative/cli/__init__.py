"""The ``derivative`` command line: ``main(argv)`` and the table of its commands.

Every command is a function ``(args, stdout, stderr) -> int`` returning an exit code from
the one table, ``derivative._errors.ExitCode``; it writes to the streams it is given and
never exits, so tests drive exactly what users run.  Each command lives in its own module
(``_parse``, ``_check``, ``_certificate``, ``_run``, ``_tests``, ``_validate_code``,
``_sandbox``, ``_import``) with a function declaring its arguments, and calls the public API
(``derivative.api``) or a layer's face, never a layer's internals.  The arguments several
commands share are declared once (``_arguments``), with defaults read from the API's
options classes.

Only ``main`` turns what happened into an exit code: bad input (a ``DerivativeError``) is
rendered as ``file:line:col: error: ...`` with a caret and the error's exit code; a bug (an
``InternalError`` or any other exception) as two lines and a crash report (exit 70).
Adding a command means one module with ``arguments`` and ``run``, and one row below naming
the module and its help line (modules are imported only when their command runs); a path
of two words makes a nested command, whose group takes its help text from ``GROUPS``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, Any, TextIO

from derivative._errors import DerivativeError, ExitCode, InternalError
from derivative._gcpause import start_over

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

# Each command names its module; the module (and the layers it uses) is imported only when
# that command runs or declares its flags, so ``--version`` and ``--help`` import nothing
# heavy. The help lines are written here for the same reason; tests/unit/test_cli.py checks
# that each equals its module's constant.
COMMANDS: tuple[Command, ...] = (
    Command(("parse",), "parse and type-check a requirement set", "_parse"),
    Command(("check",), "decide whether a requirement set can hold; prove it when it cannot",
            "_check"),
    Command(("sandbox", "build-image"), "build the Docker sandbox image", "_sandbox",
            help_name="BUILD_IMAGE_HELP", arguments_name="build_image_arguments",
            run_name="run_build_image"),
    Command(("sandbox", "doctor"), "show what isolation this machine can give, and why",
            "_sandbox", help_name="DOCTOR_HELP", arguments_name="doctor_arguments",
            run_name="run_doctor"),
    Command(("tests",), "write (or run) property tests of an implementation from a "
            "requirement set", "_tests"),
    Command(("run",), "run an untrusted implementation in a sandbox and judge it against a "
            "requirement set", "_run"),
    Command(("build",), "judge a candidate (a file, a generator's output or --synth) and "
            "package it if verified", "_build"),
    Command(("batch",), "build many (spec, candidate) pairs on a Dask cluster and write one "
            "results table", "_batch"),
    Command(("package", "verify"), "re-check every digest of a package written by a verified "
            "build", "_package"),
    Command(("ledger", "status"), "was this candidate verified against this version of the "
            "contract?", "_ledger", help_name="STATUS_HELP", arguments_name="status_arguments",
            run_name="run_status"),
    Command(("ledger", "log"), "list the ledger's build records, newest first", "_ledger",
            help_name="LOG_HELP", arguments_name="log_arguments", run_name="run_log"),
    Command(("certificate", "verify"), "check an infeasibility certificate independently of "
            "the solver", "_certificate"),
    Command(("validate-code",), "check a candidate's source against a posture policy, "
            "without running it", "_validate_code"),
    Command(("import", "fret"), "translate a NASA FRET requirements export (JSON) into a "
            ".req file", "_import", help_name="FRET_HELP", arguments_name="fret_arguments",
            run_name="run_fret"),
    Command(("import", "hanfor"), "translate a Hanfor requirements export (CSV) into a .req "
            "file", "_import", help_name="HANFOR_HELP", arguments_name="hanfor_arguments",
            run_name="run_hanfor"),
)
"""Every command users can run, in the order ``derivative --help`` lists them."""

GROUPS: dict[tuple[str, ...], str] = {
    ("certificate",): "work with infeasibility certificates",
    ("sandbox",): "build and inspect the sandboxes that run candidates",
    ("package",): "work with the packages of verified builds",
    ("ledger",): "read the ledger of builds",
    ("import",): "translate other tools' requirement exports into timed requirements",
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
        try:
            parser = build_parser(COMMANDS, GROUPS, argv=arguments, stdout=out, stderr=err)
            args = parse_command_line(parser, arguments)
        finally:
            start_over()  # the command's modules are imported: the start is over
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
