"""``derivative validate-code FILE [--policy NAME|FILE] [--json]``: the static posture check.

This module belongs to the CLI layer (with ``cli.py``): it may import every layer and it
prints.  ``cli.py`` wires it in, either through ``register(subparsers)`` or as a row of
its command table built from ``add_arguments`` and ``run``.

Exit codes (CERTIFICATES.md §1): 0 accepted, 1 refused (every finding printed as
``file:line:col: strategy: message``), 2 bad input (a missing file, empty code, an
unknown or invalid policy: a ``UsageError`` that the entry point turns into a message).
A reporting policy such as ``permissive`` accepts and still prints what it found, so the
output shows what the default policy would have refused.
"""

from __future__ import annotations

import argparse
import json

from derivative.forge.posture import PostureVerdict, available_policies, validate_path

NAME = "validate-code"
HELP = "check a candidate's source against a posture policy, without running it"

EXIT_ACCEPTED = 0
EXIT_REFUSED = 1


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Declare the command's arguments on its parser."""
    p.add_argument("file", metavar="FILE", help="a .py file or a package directory")
    p.add_argument(
        "--policy",
        default="default",
        metavar="NAME|FILE",
        help="a shipped policy ("
        + ", ".join(available_policies())
        + ") or the path of a policy .json file (default: default)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the derivative.posture/v1 verdict as JSON instead of the findings",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``validate-code`` command to an argparse subparsers group."""
    sub = subparsers.add_parser(NAME, help=HELP, description=HELP)
    add_arguments(sub)
    sub.set_defaults(run=run)


def render(verdict: PostureVerdict) -> str:
    """The human-readable report: one line per finding, then a summary line."""
    lines = [f.render() for f in verdict.findings]
    count = len(verdict.findings)
    noun = "finding" if count == 1 else "findings"
    if not verdict.accepted:
        lines.append(f"refused by policy {verdict.policy}: {count} {noun}")
    elif count:
        lines.append(f"accepted: policy {verdict.policy} reports without refusing; {count} {noun}")
    else:
        lines.append(f"accepted by policy {verdict.policy}: no findings")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Validate ``args.file`` under ``args.policy``; 0 accepted, 1 refused."""
    verdict = validate_path(args.file, args.policy)
    if args.json:
        print(json.dumps(verdict.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        print(render(verdict))
    return EXIT_ACCEPTED if verdict.accepted else EXIT_REFUSED
