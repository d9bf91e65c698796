"""The ``derivative sandbox`` commands: ``build-image`` and ``doctor``.

Exit codes: 0 done (``doctor`` always: it reports what is missing), 4 when ``build-image``
cannot have the image (no engine, no debootstrap, no mirror, a failed build: a
``SandboxUnavailable`` for ``main`` to render), 2 for a wrong flag or tag.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from derivative._errors import ExitCode

GROUP_HELP = "build and inspect the sandboxes that run candidates"
BUILD_IMAGE_HELP = "build the Docker sandbox image"
DOCTOR_HELP = "show what isolation this machine can give, and why"


def build_image_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``derivative sandbox build-image``."""
    from derivative.api import DEFAULT_TAG

    p.add_argument(
        "--offline",
        action="store_true",
        help="debootstrap a Debian root file system from the host's apt mirror and "
        "`docker import` it (no registry needed)",
    )
    p.add_argument("--force", action="store_true", help="rebuild even if the tag exists")
    p.add_argument("--tag", default=DEFAULT_TAG, help=f"image tag (default {DEFAULT_TAG})")


def run_build_image(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Build (or reuse) the Docker sandbox image."""
    from derivative.api import build_image

    def progress(line: str) -> None:
        stdout.write(f"build-image: {line}\n")
        stdout.flush()

    result = build_image(offline=args.offline, force=args.force, tag=args.tag,
                         progress=progress)
    verb = "reused" if result.reused else f"built ({result.method})"
    stdout.write(f"{result.tag} {verb}: {result.image_id} in {result.seconds:.1f}s\n")
    return ExitCode.OK


def doctor_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``derivative sandbox doctor``."""
    from derivative.api import DEFAULT_TAG

    p.add_argument("--image", default=DEFAULT_TAG, help=f"image to look for ({DEFAULT_TAG})")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")


def run_doctor(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Show which isolation this machine can give, tried for real, and why."""
    from derivative.api import sandbox_doctor as diagnose

    report = diagnose(image=args.image)
    if args.json:
        stdout.write(json.dumps(report.as_json(), indent=2) + "\n")
    else:
        stdout.write(report.render() + "\n")
    return ExitCode.OK
