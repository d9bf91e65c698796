"""The ``derivative import`` commands: ``fret FILE.json`` and ``hanfor FILE.csv``.

Each translates another tool's requirement export into a ``.req`` file of timed
requirements (``derivative.import_requirements``, docs/importers.md): written to ``-o
OUT.req`` atomically (a temporary file and a rename: never half a file), else printed.
Every requirement that was not translated is listed on standard error with the reason (and
is a comment in the file); ``--json`` prints the ``derivative.import/v1`` account instead
of the text on standard output (with the text in it when there is no ``-o``).

Exit codes: 0 written (some requirements may be listed as not translated), 1 with
``--strict`` when any requirement was not translated (the file is still written), 2 bad
input (a missing file, an export that is not JSON or CSV or lacks a required field, a
wrong flag).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TextIO

from derivative._errors import ExitCode, UsageError
from derivative._files import write_atomically

from ._arguments import STDIN, read_stdin

GROUP_HELP = "translate other tools' requirement exports into timed requirements"
FRET_HELP = "translate a NASA FRET requirements export (JSON) into a .req file"
HANFOR_HELP = "translate a Hanfor requirements export (CSV) into a .req file"


def _common(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("export", metavar="FILE",
                   help=f"the {what} export (- reads it from standard input)")
    p.add_argument("-o", "--output", default=None, metavar="OUT.req",
                   help="write the .req file here (atomically) instead of printing it")
    p.add_argument("--name", default=None, metavar="NAME",
                   help="the spec's name (default: the export's project, else the file name)")
    p.add_argument("--json", action="store_true",
                   help="print the derivative.import/v1 account as JSON")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when any requirement could not be translated")


def fret_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``derivative import fret``."""
    _common(p, "FRET JSON")


def hanfor_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``derivative import hanfor``."""
    _common(p, "Hanfor CSV")
    p.add_argument("--component", default=None, metavar="NAME",
                   help="the timed block's name (default: the Component column, else "
                   "controller)")


def run_fret(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Translate a FRET export."""
    return _run("fret", args, stdout, stderr)


def run_hanfor(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Translate a Hanfor export."""
    return _run("hanfor", args, stdout, stderr)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _run(kind: str, args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from derivative import api

    options = api.ImportOptions(name=args.name, component=getattr(args, "component", None))
    if args.export == STDIN:
        data = read_stdin(args)
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            raise UsageError("<stdin>: not UTF-8 text, so not an export") from None
        result = api.import_requirements(kind, "<stdin>", text=text, options=options)
    else:
        if args.output is not None and _same_file(args.export, args.output):
            raise UsageError(f"-o {args.output} is the export itself: choose another file")
        result = api.import_requirements(kind, args.export, options=options)
    if args.output is not None:
        write_atomically(args.output, result.text)
    for item in result.untranslated:
        stderr.write(f"not translated: {item.source_id}: {item.reason}\n")
    if args.json:
        report = {**result.to_json(), "output": args.output}
        if args.output is None:
            report["text"] = result.text
        api.ImportDocument.model_validate(report)  # what is printed is what is published
        stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    elif args.output is None:
        stdout.write(result.text)
    total = len(result.translated) + len(result.untranslated)
    where = f"wrote {args.output}: " if args.output is not None else ""
    skipped = len(result.skipped)
    stderr.write(f"{where}{len(result.translated)} of {total} requirements translated"
                 + (f", {skipped} row{'s' if skipped > 1 else ''} skipped" if skipped else "")
                 + "\n")
    return ExitCode.NO if args.strict and result.untranslated else ExitCode.OK
