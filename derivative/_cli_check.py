"""``derivative check SPEC...``: is the requirement set consistent? (LANGUAGE.md §6).

Exit codes (CERTIFICATES.md §1): 0 ``feasible``, 3 ``infeasible_proven``, 6
``unknown``, 1 a ``--strict`` finding (``latent_conflict``, ``ambiguous_raises``) on
an otherwise feasible set, 2 bad input (a spec error, a missing file, ``--json``
together with ``--format``), 75 when a wall-clock safety net fired (``--timeout``, or a
certificate's re-check): an operational timeout, never an answer.  This is the CLI
layer: it prints, and returns the code.

With ``--certificate FILE`` an infeasible answer's first core is certified by the
certificate layer and written atomically (a temporary file, then a rename), so a
failed run never leaves half a certificate behind.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from derivative._errors import UsageError

EXIT_OK = 0
EXIT_STRICT = 1
EXIT_INFEASIBLE = 3
EXIT_UNKNOWN = 6


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if n <= 0:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return n


def positive_seconds(text: str) -> float:
    """An argparse type: a finite, positive number of seconds (shared by ``run``)."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not x > 0 or x != x or x == float("inf"):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return x


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``check`` (for the CLI's command table)."""
    p.add_argument("specs", nargs="+", metavar="SPEC", help="the .req files of one requirement set")
    p.add_argument("--json", action="store_true", help="print derivative.check/v1 JSON")
    p.add_argument(
        "--format", choices=("text", "json", "sarif"), default=None, help="output format"
    )
    p.add_argument(
        "--certificate", metavar="FILE", help="write the infeasibility certificate to FILE"
    )
    p.add_argument(
        "--all-cores", action="store_true", help="list every minimal conflict and correction"
    )
    p.add_argument(
        "--strict", action="store_true", help="latent conflicts and ambiguous raises fail (exit 1)"
    )
    p.add_argument(
        "--redundancy", action="store_true", help="also report obligations implied by the others"
    )
    p.add_argument(
        "--rlimit",
        type=_positive_int,
        default=None,
        metavar="N",
        help="Z3 resource limit per solver call (deterministic; default 2000000)",
    )
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=None,
        metavar="S",
        help="wall-clock safety limit per solver call in seconds (default 60); "
        "reaching it exits 75, the --rlimit decides",
    )


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``check`` subcommand to an argparse ``add_subparsers()`` object."""
    help_text = "decide whether a requirement set is consistent (feasible / infeasible / unknown)"
    p: argparse.ArgumentParser = subparsers.add_parser(
        "check", help=help_text, description=help_text
    )
    add_arguments(p)
    p.set_defaults(run=run)
    return p


def _write_atomically(path: str, text: str) -> None:
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"cannot write {path}: no such folder {folder}")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def run(args: argparse.Namespace) -> int:
    """Check the requirement set; print the report; return the exit code."""
    if args.json and args.format is not None:
        raise UsageError("--json and --format cannot be used together (--json means --format json)")
    fmt = "json" if args.json else (args.format or "text")

    from derivative import api
    from derivative.solver import CheckOptions, check, render_json, render_sarif, render_text
    from derivative.solver._certify import certify

    loaded = api.load(args.specs)
    defaults = CheckOptions()
    options = CheckOptions(
        rlimit=args.rlimit if args.rlimit is not None else defaults.rlimit,
        timeout=args.timeout if args.timeout is not None else defaults.timeout,
        all_cores=bool(args.all_cores),
        redundancy=bool(args.redundancy),
    )
    result = check(loaded.contract, loaded.types, options)
    # The JSON document carries the certificate object itself (CERTIFICATES.md §3), so a
    # JSON report of an infeasible set always builds one, re-checks included.
    if result.status == "infeasible_proven" and (args.certificate or fmt == "json"):
        import dataclasses

        certificate = certify(loaded.contract, loaded.types, result.cores[0])
        if args.certificate:
            document = certificate.to_json() if hasattr(certificate, "to_json") else certificate
            _write_atomically(
                args.certificate, json.dumps(document, indent=2, ensure_ascii=False) + "\n"
            )
        result = dataclasses.replace(result, certificate=certificate)

    if fmt == "json":
        sys.stdout.write(json.dumps(render_json(result), indent=2, ensure_ascii=False) + "\n")
    elif fmt == "sarif":
        sarif = render_sarif(result, strict=bool(args.strict))
        sys.stdout.write(json.dumps(sarif, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_text(result))
        if args.certificate and result.status != "infeasible_proven":
            sys.stdout.write(f"no certificate written: the status is {result.status}\n")
        elif args.certificate:
            sys.stdout.write(f"certificate written to {args.certificate}\n")

    if result.status == "infeasible_proven":
        return EXIT_INFEASIBLE
    if result.status == "unknown":
        return EXIT_UNKNOWN
    if args.strict and result.strict_findings:
        return EXIT_STRICT
    return EXIT_OK
