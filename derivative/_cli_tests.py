"""The ``derivative tests`` command: property tests from a requirement set.

``derivative tests SPEC... --target PATH_OR_MODULE -o FILE [--examples N]`` writes a
standalone pytest module (``forge/codegen/_generate.py``): one test per obligation, solver-chosen
inputs as ``@example``s, obligations compiled to Python; it runs with pytest and
Hypothesis only.  Without ``-o`` the obligations are run at once, in this process,
against the target (``forge/testing/_engine.py``) and a report is printed (``--json``: the
``derivative.run/v1`` obligations document).  In-process means no isolation: the
target is imported and called directly, so use it only for code you trust
(``derivative run`` is the sandboxed way).

Wired into ``cli.py`` with ``register(subparsers)``, or with one row of its command
table: ``Command(("tests",), HELP, arguments, run)``.

Exit codes (CERTIFICATES.md §1): 0 written / every obligation passed or vacuous, 1 an
obligation failed or was not exercised, 2 bad input (spec errors, a target that cannot
be imported, a wrong flag).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from typing import Any

from derivative._errors import UsageError

HELP = "write (or run) property tests of an implementation from a requirement set"

EXIT_OK = 0
EXIT_NO = 1


def arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``derivative tests``."""
    p.add_argument("specs", nargs="+", metavar="SPEC", help="the .req files of one requirement set")
    p.add_argument(
        "--target", required=True, metavar="PATH_OR_MODULE",
        help="the implementation: a .py file, a package directory (with --module) or a "
        "module name importable from the current directory",
    )
    p.add_argument("--module", default=None, metavar="NAME",
                   help="the module inside a package directory given as --target")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="write a standalone pytest module instead of running the tests")
    p.add_argument("--examples", type=int, default=100, metavar="N",
                   help="generated inputs per function or operation (default 100)")
    p.add_argument("--json", action="store_true",
                   help="when running: print the derivative.run/v1 obligations document")
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="when running: a random seed (default: derandomised, reproducible)")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tests`` to an argparse sub-parser set; ``args.run`` is ``run``."""
    p: argparse.ArgumentParser = subparsers.add_parser("tests", help=HELP, description=HELP)
    arguments(p)
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Write the module (``-o``) or run the obligations; the exit code."""
    from derivative.api import load

    if args.examples < 1:
        raise UsageError("--examples must be at least 1")
    loaded = load(args.specs)
    if args.output:
        return _write(loaded.types, args)
    return _run(loaded.types, args)


def _write(info: Any, args: argparse.Namespace) -> int:
    from derivative.forge.codegen import generate_module, relative_target

    target = relative_target(args.target, args.output)
    if args.module and not args.target.endswith(".py"):
        target = args.module
    source = generate_module(info, target, examples=args.examples)
    out = os.path.abspath(args.output)
    folder = os.path.dirname(out)
    if not os.path.isdir(folder):
        raise UsageError(f"the folder of {args.output} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=".derivative-", suffix=".py", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(source)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    tests = source.count("\ndef test_")
    sys.stdout.write(f"wrote {args.output}: {tests} tests for {info.contract.name}\n")
    return EXIT_OK


def _run(info: Any, args: argparse.Namespace) -> int:
    from hypothesis import settings

    from derivative.forge.testing import Engine, EngineOptions, InProcessCaller, load_target

    module = load_target(args.target, args.module)
    base = settings(derandomize=args.seed is None)
    options = EngineOptions(examples=args.examples, settings=base, seed=args.seed)
    engine = Engine(info, InProcessCaller.for_contract(module, info), options, target=args.target)
    evidence = engine.run()
    if args.json:
        from derivative.forge.run import RunDocument

        document = RunDocument.model_validate(evidence.to_json()).model_dump(mode="json")
        sys.stdout.write(json.dumps(document, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(evidence.summary() + "\n")
    return EXIT_OK if evidence.status == "passed" else EXIT_NO
