"""``derivative certificate verify CERT [--spec SPEC...] [--json]``.

Checks an infeasibility certificate independently (``derivative.verify_certificate``) and
reports: exit 0 when it is valid, 1 when it is rejected (every reason is printed), 2 for
bad input (the file is missing, is not JSON, a spec file cannot be read).  ``CERT`` may be
``-``, the certificate on standard input; the spec files cannot: the checker reads them
itself, as files, so that it shares no loading with the tool that wrote the certificate.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from derivative import api
from derivative._errors import ExitCode, UsageError

from ._arguments import STDIN, read_stdin, refuse_with

HELP = "check an infeasibility certificate independently of the solver"


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("certificate", metavar="CERT",
                   help="the certificate (JSON) to check (- reads it from standard input)")
    p.add_argument(
        "--spec",
        nargs="+",
        action="extend",
        default=None,
        metavar="SPEC",
        help="also check that the certificate is about this requirement set",
    )
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Verify the certificate; print the verdict; 0 valid, 1 rejected."""
    refuse_with("--spec -", STDIN in (args.spec or ()),
                "cannot be read from standard input: the checker reads the spec files "
                "itself; give their paths (the certificate may come from standard input)")
    certificate: Any = args.certificate  # a path, or the parsed JSON (any JSON value)
    shown = args.certificate
    if args.certificate == STDIN:
        shown = "<stdin>"
        try:
            text = read_stdin(args).decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{shown}: not UTF-8 text, so not a certificate") from None
        certificate = api.parse_certificate(text, shown)
    options = api.VerifyOptions(spec=args.spec or ())
    result = api.verify_certificate(certificate, options)
    code = ExitCode.OK if result.valid else ExitCode.NO
    if args.json:
        out = {"certificate": shown, **result.to_json()}
        stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
        return code
    lines = [f"{'valid' if result.valid else 'rejected'}: {shown}"]
    for reason in result.reasons:
        lines.append(f"  reason: {reason}")
    for check in result.checks:
        lines.append(f"  check: {check.describe()}")
    if result.farkas_checked:
        lines.append("  check: farkas multipliers verified with exact fractions")
    for note in result.notes:
        if not note.startswith("farkas:"):
            lines.append(f"  note: {note}")
    stdout.write("\n".join(lines) + "\n")
    return code
