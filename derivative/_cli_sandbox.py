"""The ``derivative sandbox`` commands: ``build-image`` and ``doctor``.

Kept apart from ``cli.py`` so the sandbox commands can be wired in with one call::

    from derivative import _cli_sandbox
    _cli_sandbox.register(subparsers)      # adds "sandbox build-image" and "sandbox doctor"

or, with the command table of ``cli.py``, one row per command using
``build_image_arguments``/``run_build_image`` and ``doctor_arguments``/``run_doctor``.
Each command is a function returning an exit code (CERTIFICATES.md §1): 0 done, 4 when the
isolation asked for cannot be had (no engine, no debootstrap, no mirror, a failed build).
Errors are ``DerivativeError``s that the entry point renders; nothing here exits.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from derivative._errors import UsageError

EXIT_OK = 0
EXIT_SANDBOX_UNAVAILABLE = 4


def build_image_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``derivative sandbox build-image``."""
    from derivative.forge.sandbox import DEFAULT_TAG

    p.add_argument(
        "--offline",
        action="store_true",
        help="debootstrap a Debian root file system from the host's apt mirror and "
        "`docker import` it (no registry needed)",
    )
    p.add_argument("--force", action="store_true", help="rebuild even if the tag exists")
    p.add_argument("--tag", default=DEFAULT_TAG, help=f"image tag (default {DEFAULT_TAG})")


def run_build_image(args: argparse.Namespace) -> int:
    """Build (or reuse) the Docker sandbox image."""
    from derivative.forge.sandbox import build_image

    def progress(line: str) -> None:
        print(f"build-image: {line}", flush=True)

    result = build_image(offline=args.offline, force=args.force, tag=args.tag,
                         progress=progress)
    verb = "reused" if result.reused else f"built ({result.method})"
    print(f"{result.tag} {verb}: {result.image_id} in {result.seconds:.1f}s")
    return EXIT_OK


def doctor_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``derivative sandbox doctor``."""
    from derivative.forge.sandbox import DEFAULT_TAG

    p.add_argument("--image", default=DEFAULT_TAG, help=f"image to look for ({DEFAULT_TAG})")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")


def run_doctor(args: argparse.Namespace) -> int:
    """Show which isolation this machine can give, tried for real, and why."""
    import json

    from derivative.forge.sandbox import diagnose

    report = diagnose(image=args.image)
    if args.json:
        print(json.dumps(report.as_json(), indent=2))
    else:
        print(report.render())
    return EXIT_OK


_COMMANDS: dict[str, tuple[str, Any, Any]] = {
    "build-image": ("build the Docker sandbox image", build_image_arguments, run_build_image),
    "doctor": ("show what isolation this machine can give, and why", doctor_arguments,
               run_doctor),
}


def register(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Add ``sandbox`` with its sub-commands; each sets ``args.run`` to ``run``."""
    group: argparse.ArgumentParser = subparsers.add_parser(
        "sandbox", help="manage the sandboxes", description="manage the sandboxes"
    )
    inner = group.add_subparsers(dest="sandbox_command", metavar="COMMAND", required=True)
    for name, (help_text, arguments, _) in _COMMANDS.items():
        sub = inner.add_parser(name, help=help_text, description=help_text)
        arguments(sub)
        sub.set_defaults(run=run)
    return group


def run(args: argparse.Namespace) -> int:
    """Dispatch ``derivative sandbox COMMAND``."""
    entry = _COMMANDS.get(getattr(args, "sandbox_command", "") or "")
    if entry is None:
        raise UsageError("choose a sandbox command: build-image or doctor")
    code: int = entry[2](args)
    return code


def main(argv: list[str] | None = None) -> int:
    """``derivative sandbox ...`` on its own (for scripts before the CLI wires it in)."""
    from derivative._errors import DerivativeError

    parser = argparse.ArgumentParser(prog="derivative")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv if argv is not None else sys.argv[1:])
    try:
        return run(args)
    except DerivativeError as err:
        sys.stderr.write(err.render().rstrip("\n") + "\n")
        return err.exit_code
