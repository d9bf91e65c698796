"""``derivative run SPEC... --candidate PATH``: judge untrusted code behind a sandbox.

    derivative run SPEC... --candidate PATH [--module NAME] [--sandbox auto|docker|process]
                   [--policy NAME|FILE] [--examples N] [--json] [--seed N]
                   [--call-timeout S] [--run-timeout S] [--image TAG]

The pipeline is ``forge/run/_pipeline.py``: consistency of the contract, the static posture of
the candidate, one sandbox, every obligation through the channel, a verdict from the
evidence.  This module only turns flags into ``RunOptions`` and the report into text or
the ``derivative.run/v1`` document.

Exit codes (CERTIFICATES.md §1): 0 ``passed`` (every obligation passed with sufficient
evidence), 1 ``failed`` (a counterexample or an unexercised obligation), 2 bad input,
3 ``infeasible_proven``, 4 ``sandbox_unavailable``, 5 ``sandbox_policy_violation``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from derivative._cli_check import positive_seconds
from derivative._errors import UsageError

NAME = "run"
HELP = "run an untrusted implementation in a sandbox and judge it against a requirement set"


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``run``."""
    p.add_argument("specs", nargs="+", metavar="SPEC", help="the .req files of one requirement set")
    p.add_argument("--candidate", required=True, metavar="PATH",
                   help="the implementation: a .py file or a folder (a package, or with --module)")
    p.add_argument("--module", default=None, metavar="NAME",
                   help="the module to import from a candidate folder")
    p.add_argument("--sandbox", choices=("auto", "docker", "process"), default="auto",
                   help="where the candidate runs (default auto: Docker when the engine and "
                   "image are there, else the process sandbox)")
    p.add_argument("--policy", default="default", metavar="NAME|FILE",
                   help="the posture policy: default, permissive, or a policy .json file")
    p.add_argument("--examples", type=_positive_int, default=100, metavar="N",
                   help="generated inputs per function or operation (default 100)")
    p.add_argument("--json", action="store_true", help="print the derivative.run/v1 document")
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="a random seed (default: derandomised, the same inputs every run)")
    p.add_argument("--call-timeout", type=positive_seconds, default=None, metavar="S",
                   help="wall-clock seconds per call (default 10); a call over it kills the "
                   "sandbox, a fresh one continues and the call fails")
    p.add_argument("--run-timeout", type=positive_seconds, default=None, metavar="S",
                   help="wall-clock seconds for the whole run (default 900)")
    p.add_argument("--image", default=None, metavar="TAG",
                   help="the Docker image (default derivative-sandbox:1)")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``run`` to an argparse sub-parser set; ``args.run`` is ``run``."""
    p: argparse.ArgumentParser = subparsers.add_parser(NAME, help=HELP, description=HELP)
    add_arguments(p)
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run the candidate; print the report; return the exit code of its status."""
    from derivative import api
    from derivative.forge.run import RunOptions, run_candidate
    from derivative.forge.sandbox import Limits

    if args.module is not None and not args.module:
        raise UsageError("--module must not be empty")
    loaded = api.load(args.specs)
    defaults = Limits()
    limits = Limits(
        call_timeout=args.call_timeout or defaults.call_timeout,
        run_timeout=args.run_timeout or defaults.run_timeout,
    )
    options = RunOptions(
        candidate=args.candidate, module=args.module, sandbox=args.sandbox,
        policy=args.policy, examples=args.examples, seed=args.seed, limits=limits,
        image=args.image,
    )
    report = run_candidate(loaded.types, options)
    if args.json:
        sys.stdout.write(json.dumps(report.to_json(), indent=2, sort_keys=True,
                                    ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(report.summary() + "\n")
    return report.exit_code
