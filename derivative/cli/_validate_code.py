"""``derivative validate-code FILE [--policy NAME|FILE] [--json]``: the static posture check.

Exit codes: 0 accepted, 1 refused (every finding printed as ``file:line:col: strategy:
message``), 2 bad input (a missing file, empty code, an unknown or invalid policy).  A
reporting policy such as ``permissive`` accepts and still prints what it found, so the
output shows what the default policy would have refused.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, TextIO

from derivative._errors import ExitCode

from ._arguments import add_policy

if TYPE_CHECKING:
    from derivative.api import PostureVerdict

HELP = "check a candidate's source against a posture policy, without running it"


def arguments(p: argparse.ArgumentParser) -> None:
    from derivative.api import DEFAULT_POLICY, available_policies

    p.add_argument("file", metavar="FILE", help="a .py file or a package directory")
    add_policy(
        p,
        "a shipped policy ("
        + ", ".join(available_policies())
        + f") or the path of a policy .json file (default: {DEFAULT_POLICY})",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the derivative.posture/v1 verdict as JSON instead of the findings",
    )


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


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Validate ``args.file`` under ``args.policy``; 0 accepted, 1 refused."""
    from derivative.api import validate_code as validate_path

    verdict = validate_path(args.file, args.policy)
    if args.json:
        stdout.write(json.dumps(verdict.model_dump(mode="json"), indent=2, ensure_ascii=False))
        stdout.write("\n")
    else:
        stdout.write(render(verdict) + "\n")
    return ExitCode.OK if verdict.accepted else ExitCode.NO
