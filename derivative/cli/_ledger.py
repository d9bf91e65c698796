"""``derivative ledger status`` and ``derivative ledger log``: what builds have proven.

``status`` answers, for the contract as it is now, whether the candidate was verified
against this exact version, only against an older one (an old green result proves nothing
about the stronger contract), or never. ``log`` lists the records, newest first. Both read
the append-only ledger in the state folder (``--state``, default the user's data folder).
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from derivative import api
from derivative._errors import ExitCode

from ._arguments import add_specs, load_specs, positive_int

STATUS_HELP = "was this candidate verified against this version of the contract?"
LOG_HELP = "list the ledger's build records, newest first"
GROUP_HELP = "read the ledger of builds"


def _state(p: argparse.ArgumentParser) -> None:
    p.add_argument("--state", default=None, metavar="DIR",
                   help="the state folder holding the ledger (default: $DERIVATIVE_STATE, "
                   "else the user's data directory)")


def status_arguments(p: argparse.ArgumentParser) -> None:
    add_specs(p)
    p.add_argument("--candidate", required=True, metavar="PATH",
                   help="the implementation, as it was given to build")
    p.add_argument("--module", default=None, metavar="NAME",
                   help="the module of a candidate folder")
    _state(p)
    p.add_argument("--json", action="store_true", help="print the answer as JSON")


def run_status(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """0 when verified against this version, 1 otherwise."""
    loaded = load_specs(args)
    answer = api.ledger_status(loaded, args.candidate, module=args.module, state=args.state)
    if args.json:
        record = answer.record
        stdout.write(json.dumps({
            "status": answer.kind, "sentence": answer.sentence, "version": answer.version,
            "build_id": record.build_id if record else None,
            "folder": record.folder if record else None,
        }, indent=2) + "\n")
    else:
        stdout.write(answer.sentence + "\n")
    return ExitCode.OK if answer.kind == "verified" else ExitCode.NO


def log_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--spec", default=None, metavar="NAME", help="only records of this contract")
    p.add_argument("--limit", type=positive_int, default=None, metavar="N",
                   help="at most N records")
    _state(p)
    p.add_argument("--json", action="store_true", help="print JSON lines, one per record")


def run_log(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    import dataclasses
    from pathlib import Path

    from derivative.api import LEDGER_FILE, Ledger, default_state_dir

    folder = Path(args.state) if args.state else default_state_dir()
    # reading the ledger creates nothing: no ledger file is no records
    records = Ledger(folder).log(limit=args.limit, contract_name=args.spec) \
        if (folder / LEDGER_FILE).is_file() else []
    for r in records:
        if args.json:
            stdout.write(json.dumps(dataclasses.asdict(r), sort_keys=True) + "\n")
        else:
            cand = (r.candidate_sha256 or "-")[:12]
            stdout.write(f"{r.finished_at}  {r.status:<24} {r.contract_name} v"
                         f"{r.contract_version} ({r.contract_sha256[:12]})  candidate {cand}  "
                         f"{r.folder}\n")
    if not records and not args.json:
        stdout.write("no builds recorded\n")
    return ExitCode.OK
