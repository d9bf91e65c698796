"""``derivative check SPEC...``: is the requirement set consistent? (docs/language.md §9).

Exit codes (``ExitCode``): 0 ``feasible``, 3 ``infeasible_proven``, 6 ``unknown``, 1 a
``--strict`` finding (``latent_conflict``, ``ambiguous_raises``) on an otherwise feasible
set, 2 bad input (a spec error, a missing file, ``--json`` together with ``--format``).

With ``--certificate FILE`` an infeasible answer's first core is certified and written
atomically (a temporary file, then a rename), so a failed run never leaves half a
certificate behind.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from derivative import api
from derivative._errors import ExitCode, UsageError, exit_code_for
from derivative._files import write_atomically

from ._arguments import (
    add_events,
    add_specs,
    events_to,
    load_specs,
    positive_int,
    positive_seconds,
    refuse_with,
)
from ._progress import gates

HELP = "decide whether a requirement set can hold; prove it when it cannot"


def arguments(p: argparse.ArgumentParser) -> None:
    from derivative.api import CheckOptions

    add_specs(p)
    p.add_argument("--json", action="store_true", help="print derivative.check/v1 JSON")
    add_events(p)
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
        "--no-warnings",
        action="store_true",
        help="only the verdict: skip the warnings (vacuous, latent_conflict, ...)",
    )
    p.add_argument(
        "--rlimit",
        type=positive_int,
        default=CheckOptions.rlimit,
        metavar="N",
        help="Z3 resource limit per solver call (deterministic; default "
        f"{CheckOptions.rlimit}); a question asserting more than "
        f"{CheckOptions.RLIMIT_SCALE_SIZE:,} constraints gets "
        f"N x constraints / {CheckOptions.RLIMIT_SCALE_SIZE:,}",
    )
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=CheckOptions.timeout,
        metavar="S",
        help="wall-clock safety limit per solver call in seconds "
        f"(default {CheckOptions.timeout:g}); reaching it exits 75, the --rlimit decides",
    )
    p.add_argument(
        "--depth",
        type=positive_int,
        default=20,
        metavar="K",
        help="timed blocks: check runs of up to K steps (default 20, at most 200); the "
        "report says 'no conflict up to depth K', never more",
    )
    p.add_argument(
        "--causal-depth",
        type=positive_int,
        default=10,
        metavar="K",
        help="timed blocks: play the causal realizability game (outputs chosen after each "
        "step's inputs) up to min(--depth, K) steps (default 10)",
    )
    p.add_argument(
        "--max-cores",
        type=positive_int,
        default=None,
        metavar="N",
        help="--all-cores: at most N minimal cores per independent group of obligations, "
        f"and N corrections (default {CheckOptions.max_cores})",
    )
    p.add_argument(
        "--enumeration-work",
        type=positive_int,
        default=None,
        metavar="N",
        help="--all-cores: Z3 resource units the enumeration of one independent group may "
        f"spend (deterministic; default {CheckOptions.enumeration_work})",
    )


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Check the requirement set; print the report; return the exit code."""
    if args.json and args.format is not None:
        raise UsageError("--json and --format cannot be used together (--json means --format json)")
    fmt = "json" if args.json else (args.format or "text")

    from derivative.api import CheckOptions, render_json, render_sarif, render_text

    for flag, given in (("--strict", args.strict), ("--redundancy", args.redundancy)):
        refuse_with(
            flag, given and args.no_warnings, "asks for warnings, which --no-warnings turns off"
        )
    for flag, value in (
        ("--max-cores", args.max_cores),
        ("--enumeration-work", args.enumeration_work),
    ):
        refuse_with(
            flag,
            value is not None and not args.all_cores,
            "bounds the enumeration of --all-cores, which is not asked for",
        )
    from derivative._timed_ast import MAX_DEPTH

    if args.depth > MAX_DEPTH:
        raise UsageError(f"--depth {args.depth} is more than {MAX_DEPTH} steps")
    loaded = load_specs(args)
    defaults = CheckOptions()
    options = CheckOptions(
        rlimit=args.rlimit,
        timeout=args.timeout,
        all_cores=bool(args.all_cores),
        redundancy=bool(args.redundancy),
        warnings=not args.no_warnings,
        max_cores=defaults.max_cores if args.max_cores is None else args.max_cores,
        enumeration_work=(
            defaults.enumeration_work if args.enumeration_work is None else args.enumeration_work
        ),
    )
    with (
        events_to(args.events),
        gates(stderr, json_output=fmt != "text", title=f"check {loaded.name}") as progress,
    ):
        result = api.check(loaded, options, progress=progress)
        # The JSON document carries the certificate object itself (docs/cli.md), so a
        # JSON report of an infeasible set always builds one, re-checks included.
        if result.status == "infeasible_proven" and (args.certificate or fmt == "json"):
            if progress is not None:
                progress("certificate", "re-checking the proof in fresh z3 and cvc5 processes")
            result = api.certify(loaded, result)
            if args.certificate:
                document = result.certificate.to_json()
                write_atomically(
                    args.certificate, json.dumps(document, indent=2, ensure_ascii=False) + "\n"
                )

    timed = _timed(loaded, args)
    timed_cert = _timed_certificate(args, result, timed, fmt)
    combined = _combined_status(result.status, timed)
    if fmt == "json":
        document = render_json(result)
        if timed:
            from derivative.api import timed_result_json

            document["timed"] = [timed_result_json(r) for r in timed]
            document["status"] = combined
            if timed_cert is not None and document["certificate"] is None:
                document["certificate"] = timed_cert
        stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    elif fmt == "sarif":
        sarif = render_sarif(result, strict=bool(args.strict))
        stdout.write(json.dumps(sarif, indent=2, ensure_ascii=False) + "\n")
    else:
        if not (timed and _untimed_is_empty(loaded)):
            stdout.write(render_text(result))
        if timed:
            from derivative.api import render_timed_text

            stdout.write(render_timed_text(timed))
            shown = "no conflict up to depth " + str(args.depth) if (
                combined == "no_conflict_up_to_depth") else combined
            stdout.write(f"status: {shown}\n")
        certified = result.status == "infeasible_proven" or timed_cert is not None
        if args.certificate and not certified:
            stdout.write(f"no certificate written: the status is {combined}\n")
        elif args.certificate:
            stdout.write(f"certificate written to {args.certificate}\n")

    if combined == "feasible" and args.strict and result.strict_findings:
        return ExitCode.NO
    return exit_code_for("feasible" if combined == "no_conflict_up_to_depth" else combined)


def _combined_status(untimed: str, timed: tuple[Any, ...]) -> str:
    """One status for the whole set: a proven conflict anywhere wins, then an undecided
    question; a set with timed blocks is never more than ``no_conflict_up_to_depth``."""
    statuses = [untimed, *(r.status for r in timed)]
    for status in ("infeasible_proven", "unknown"):
        if status in statuses:
            return status
    return "no_conflict_up_to_depth" if timed else untimed


def _untimed_is_empty(loaded: api.LoadedContract) -> bool:
    """Nothing but timed blocks, enums and consts: the untimed report would say nothing."""
    return not loaded.obligations and all(
        d.kind in ("enum", "const") for d in loaded.declarations
    )


def _timed(loaded: api.LoadedContract, args: argparse.Namespace) -> tuple[Any, ...]:
    """The timed blocks' answers (none without blocks)."""
    if not loaded.timed:
        return ()
    from derivative.api import TimedOptions

    options = TimedOptions(depth=args.depth, causal_depth=args.causal_depth,
                           rlimit=args.rlimit, timeout=args.timeout)
    return api.check_timed(loaded, options)


def _timed_certificate(args: argparse.Namespace, result: Any, timed: tuple[Any, ...],
                       fmt: str) -> dict[str, Any] | None:
    """The certificate of the first timed conflict that has one (the unrolled requirement
    set's, re-checked by both solvers like any other), when the untimed part has none;
    written to ``--certificate`` if asked for."""
    if result.status == "infeasible_proven" or not (args.certificate or fmt == "json"):
        return None
    for r in timed:
        if r.status == "infeasible_proven" and r.untimed is not None:
            unrolled = api.LoadedContract(contract=r.unrolled.contract, types=r.unrolled.types)
            document: dict[str, Any] = api.certify(unrolled, r.untimed).certificate.to_json()
            if args.certificate:
                write_atomically(
                    args.certificate, json.dumps(document, indent=2, ensure_ascii=False) + "\n"
                )
            return document
    return None
