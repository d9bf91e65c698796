"""``derivative certificate verify CERT [--spec SPEC...] [--json]``.

Checks an infeasibility certificate independently (``derivative.certificates.verify``)
and reports: exit 0 when it is valid, 1 when it is rejected (every reason is
printed), 2 for bad input (the file is missing, is not JSON, a spec file cannot be
read), 75 when a solver's re-check was killed by the wall-clock safety net (no
verdict: ``OperationalTimeout``).  Bad input is raised as ``UsageError``/``SpecError``
for ``cli.main`` to report, as every command does.

Wiring: ``cli.COMMANDS`` gets ``Command(COMMAND, HELP, arguments, run)``; or, with a
plain argparse tree, ``register(subparsers)`` adds the ``certificate verify`` pair.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Final

from derivative._errors import UsageError

__all__ = ["COMMAND", "HELP", "add_arguments", "arguments", "register", "run"]

COMMAND: Final = ("certificate", "verify")
HELP: Final = "check an infeasibility certificate independently of the solver"

EXIT_VALID: Final = 0
EXIT_REJECTED: Final = 1


def arguments(p: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``certificate verify``."""
    p.add_argument("certificate", metavar="CERT", help="the certificate (JSON) to check")
    p.add_argument(
        "--spec",
        nargs="+",
        action="extend",
        default=None,
        metavar="SPEC",
        help="also check that the certificate is about this requirement set",
    )
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")


add_arguments = arguments
"""The same, under the name the other CLI modules use."""


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``certificate verify`` to an argparse sub-parser collection; return its parser."""
    group = subparsers.add_parser("certificate", help="work with infeasibility certificates")
    commands = group.add_subparsers(dest="certificate_command", metavar="COMMAND", required=True)
    verify_parser: argparse.ArgumentParser = commands.add_parser(
        "verify", help=HELP, description=HELP
    )
    arguments(verify_parser)
    verify_parser.set_defaults(run=run)
    return verify_parser


def _read(path: str) -> object:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a certificate") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text, so not a certificate") from None
    except OSError as err:
        raise UsageError(f"{path}: cannot be read: {err.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise UsageError(
            f"{path}: not JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None


def run(args: argparse.Namespace) -> int:
    """Verify the certificate; print the verdict; 0 valid, 1 rejected."""
    from derivative.certificates import verify

    document = _read(args.certificate)
    result = verify(document, args.spec or None)
    if args.json:
        out = {"certificate": args.certificate, **result.to_json()}
        sys.stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
        return EXIT_VALID if result.valid else EXIT_REJECTED
    lines = [f"{'valid' if result.valid else 'rejected'}: {args.certificate}"]
    for reason in result.reasons:
        lines.append(f"  reason: {reason}")
    for check in result.checks:
        lines.append(f"  check: {check.describe()}")
    if result.farkas_checked:
        lines.append("  check: farkas multipliers verified with exact fractions")
    for note in result.notes:
        if not note.startswith("farkas:"):
            lines.append(f"  note: {note}")
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_VALID if result.valid else EXIT_REJECTED
