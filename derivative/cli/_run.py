"""``derivative run SPEC... --candidate PATH``: judge untrusted code behind a sandbox.

    derivative run SPEC... --candidate PATH [--module NAME] [--sandbox auto|docker|process]
                   [--policy NAME|FILE] [--examples N] [--json] [--seed N]
                   [--call-timeout S] [--run-timeout S] [--image TAG]

The pipeline is ``derivative.run_candidate``: consistency of the contract, the static
posture of the candidate, one sandbox, every obligation through the channel, a verdict
from the evidence.  This module only turns flags into ``RunOptions`` and the report into
text or the ``derivative.run/v1`` document.

Exit codes: 0 ``passed``, 1 ``failed`` (a counterexample or an unexercised obligation),
2 bad input, 3 ``infeasible_proven``, 4 ``sandbox_unavailable``, 5
``sandbox_policy_violation``.
"""

from __future__ import annotations

import argparse
import json
import typing
from typing import TextIO

from derivative import api
from derivative._errors import UsageError

from ._arguments import (
    add_events,
    add_examples,
    add_policy,
    add_seed,
    add_specs,
    events_to,
    example_count,
    load_specs,
    positive_seconds,
    refuse_with,
)
from ._progress import gates

HELP = "run an untrusted implementation in a sandbox and judge it against a requirement set"


def arguments(p: argparse.ArgumentParser) -> None:
    from derivative.api import DEFAULT_TAG, BackendName, Limits, RunOptions

    add_specs(p)
    p.add_argument("--candidate", required=True, metavar="PATH",
                   help="the implementation: a .py file or a folder (a package, or with --module)")
    p.add_argument("--module", default=RunOptions.module, metavar="NAME",
                   help="the module to import from a candidate folder")
    p.add_argument("--sandbox", choices=typing.get_args(BackendName), default=RunOptions.sandbox,
                   help=f"where the candidate runs (default {RunOptions.sandbox}: Docker when "
                   "the engine and image are there, else the process sandbox)")
    add_policy(p, "the posture policy: default, permissive, or a policy .json file")
    add_examples(p, RunOptions.examples)
    p.add_argument("--max-examples", type=example_count, default=RunOptions.max_examples,
                   metavar="N", help="generated inputs per function at most while the "
                   f"candidate's coverage still grows (default {RunOptions.max_examples})")
    p.add_argument("--no-coverage", action="store_true",
                   help="do not measure the candidate's line and branch coverage (and do not "
                        "generate inputs beyond --examples)")
    p.add_argument("--json", action="store_true", help="print the derivative.run/v1 document")
    p.add_argument("--verbose", action="store_true",
                   help="interleavings also name the bytecode instructions (where each "
                   "thread was preempted, what each row executed)")
    add_seed(p, "a random seed (default: derandomised, the same inputs every run)")
    add_events(p)
    p.add_argument("--call-timeout", type=positive_seconds, default=Limits.call_timeout,
                   metavar="S",
                   help=f"wall-clock seconds per call (default {Limits.call_timeout:g}); a call "
                   "over it kills the sandbox, a fresh one continues and the call fails")
    p.add_argument("--run-timeout", type=positive_seconds, default=Limits.run_timeout,
                   metavar="S",
                   help=f"wall-clock seconds for the whole run (default {Limits.run_timeout:g})")
    p.add_argument("--image", default=RunOptions.image, metavar="TAG",
                   help=f"the Docker image (default {DEFAULT_TAG})")


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Run the candidate; print the report; return the exit code of its status."""
    from derivative.api import Limits, RunOptions

    if args.module is not None and not args.module:
        raise UsageError("--module must not be empty")
    refuse_with("--image", args.image is not None and args.sandbox == "process",
                "names the Docker image; --sandbox process runs no image (drop one of them)")
    loaded = load_specs(args)
    options = RunOptions(
        candidate=args.candidate, module=args.module, sandbox=args.sandbox,
        policy=args.policy, examples=args.examples, seed=args.seed,
        coverage=not args.no_coverage, max_examples=args.max_examples,
        limits=Limits(call_timeout=args.call_timeout, run_timeout=args.run_timeout),
        image=args.image, verbose=bool(args.verbose),
    )
    with events_to(args.events), gates(stderr, json_output=args.json,
                                       title=f"run {loaded.name}") as progress:
        report = api.run_candidate(loaded, options, progress=progress)
    if args.json:
        stdout.write(json.dumps(report.to_json(), indent=2, sort_keys=True,
                                ensure_ascii=False) + "\n")
    else:
        stdout.write(report.summary() + "\n")
    return report.exit_code
