"""``derivative package verify PKG``: re-check a verified build's package from its bytes.

Every digest of ``RECORD``, the in-toto statement against the candidate files, the
evidence files against the statement, and the contract identity against
``build_spec.json``. Exit codes: 0 valid, 1 rejected (with the reason), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TextIO

from derivative import api
from derivative._errors import ExitCode, UsageError

HELP = "re-check every digest of a package written by a verified build"
GROUP_HELP = "work with the packages of verified builds"


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("package", metavar="PKG", help="the .whl a verified build wrote")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    path = Path(args.package)
    if not path.is_file():
        raise UsageError(f"no such package: {args.package}" if not os.path.exists(path)
                         else f"{args.package} is not a file")
    check = api.verify_package(path)
    if args.json:
        stdout.write(json.dumps({"package": str(path), "valid": check.ok, "reason": check.reason,
                                 "details": list(check.details)}, indent=2) + "\n")
    else:
        stdout.write(f"{path}: {'valid' if check.ok else 'rejected'}: {check.reason}\n")
        for line in check.details[1:] if not check.ok else ():
            stdout.write(f"  also: {line}\n")
    return ExitCode.OK if check.ok else ExitCode.NO
