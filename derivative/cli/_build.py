"""``derivative build``: judge a candidate and package it only when the evidence says so.

    derivative build SPEC... (--candidate PATH | --generator CMD | --synth)
                     [--module NAME] [--sandbox auto|docker|process] [--image TAG]
                     [--policy NAME|FILE] [--out DIR] [--max-repairs N] [--examples N]
                     [--seed N] [--events FILE] [--state DIR] [--json]

The pipeline is ``derivative.build`` (docs/build.md): the contract frozen, its feasibility,
the candidate's posture, one sandbox, every obligation, the candidate's own tests (never
evidence), bounded repair with a generator, the package and the ledger record. This module
turns flags into ``BuildOptions`` and the report into text or ``derivative.outcome/v1``.

Exit codes: 0 ``verified``, 1 ``validation_failed``, 2 bad input, 3 ``infeasible_proven``,
4 ``sandbox_unavailable``, 5 ``sandbox_policy_violation``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
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
    load_specs,
    refuse_with,
)
from ._progress import gates

HELP = "judge a candidate (a file, a generator's output or --synth) and package it if verified"


def arguments(p: argparse.ArgumentParser) -> None:
    from derivative.api import DEFAULT_TAG, BackendName, BuildOptions

    add_specs(p)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--candidate", metavar="PATH",
                        help="the implementation: a .py file or a folder (with --module)")
    source.add_argument("--generator", metavar="CMD",
                        help="a program that writes candidate files (see docs/build.md); "
                        "it is split like a shell command line")
    source.add_argument("--synth", action="store_true",
                        help="write the candidate with the built-in synthesiser (functions "
                        "that pin their result with `ensures: result == EXPR`)")
    p.add_argument("--module", default=BuildOptions.module, metavar="NAME",
                   help="the module the contract describes (default: the file's name, or "
                   "the spec's name for generated code)")
    p.add_argument("--sandbox", choices=typing.get_args(BackendName),
                   default=BuildOptions.sandbox, help="where candidates run (default "
                   f"{BuildOptions.sandbox})")
    p.add_argument("--image", default=BuildOptions.image, metavar="TAG",
                   help=f"the Docker image (default {DEFAULT_TAG}); never pulled")
    add_policy(p, "the posture policy: default, permissive, or a policy .json file "
               "(a non-enforcing policy is never verified)")
    p.add_argument("--out", default=BuildOptions.out, metavar="DIR",
                   help="the build folder (default derivative-builds/SPEC-TIME-ID)")
    p.add_argument("--max-repairs", type=_repairs, default=None,
                   metavar="N", help="repairs a generator may make after its first attempt "
                   f"(default {BuildOptions.max_repairs}); only with --generator")
    add_examples(p, BuildOptions.examples)
    p.add_argument("--require-coverage", action="store_true",
                   help="fail the validation when a line of the candidate ran under no "
                        "judged input (the lines are listed); by default they are reported")
    add_seed(p, "a random seed (default: derandomised, the same inputs every build)")
    add_events(p)
    p.add_argument("--state", default=BuildOptions.state, metavar="DIR",
                   help="the state folder holding the ledger (default: $DERIVATIVE_STATE, "
                   "else the user's data directory)")
    p.add_argument("--json", action="store_true",
                   help="print the derivative.outcome/v1 document")


def _repairs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if n < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return n


def _absolute_paths(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The generator runs in a folder of its own: a word naming a file or folder relative to
    the current directory (``examples/generators/scripted.py``) is made absolute, so the
    command means what it means at the user's prompt."""
    return tuple(os.path.abspath(w) if not os.path.isabs(w) and os.path.exists(w) and
                 (os.sep in w or w.startswith(".")) else w for w in argv)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Build; print the report; return the exit code of its status."""
    from derivative.api import BuildOptions

    generator: tuple[str, ...] | None = None
    if args.generator is not None:
        try:
            generator = tuple(shlex.split(args.generator))
        except ValueError as exc:
            raise UsageError(f"--generator: {exc}") from None
        if not generator:
            raise UsageError("--generator must name a program")
        generator = _absolute_paths(generator)
    refuse_with("--max-repairs", args.max_repairs is not None and generator is None,
                "applies to --generator: only a generator repairs its code (a --candidate or "
                "--synth build has one attempt)")
    refuse_with("--image", args.image is not None and args.sandbox == "process",
                "names the Docker image; --sandbox process runs no image (drop one of them)")
    max_repairs = BuildOptions.max_repairs if args.max_repairs is None else args.max_repairs
    loaded = load_specs(args)
    options = BuildOptions(
        candidate=args.candidate, generator=generator, synth=bool(args.synth),
        module=args.module, sandbox=args.sandbox, policy=args.policy, out=args.out,
        max_repairs=max_repairs, examples=args.examples, seed=args.seed,
        state=args.state, image=args.image, require_coverage=bool(args.require_coverage),
    )
    with events_to(args.events), gates(stderr, json_output=args.json,
                                       title=f"build {loaded.name}") as progress:
        report = api.build(loaded, options, progress=progress)
    if args.json:
        stdout.write(json.dumps(report.outcome, indent=2, sort_keys=True,
                                ensure_ascii=False) + "\n")
    else:
        stdout.write(report.summary() + "\n")
        if report.package is not None:
            stdout.write(f"check it any time: derivative package verify {report.package}\n")
    return report.exit_code
