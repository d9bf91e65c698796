"""``derivative tests SPEC... --target PATH_OR_MODULE [-o FILE]``: property tests.

With ``-o FILE`` it writes a standalone pytest module (``derivative.generate_tests``): one
test per obligation, solver-chosen inputs as ``@example``s, obligations compiled to
Python; it runs with pytest and Hypothesis only.  Without ``-o`` the obligations are run at
once, in this process, against the target (``derivative.run_tests``) and a report is
printed (``--json``: the ``derivative.run/v1`` obligations document).  In-process means no
isolation: the target is imported and called directly, so use it only for code you trust
(``derivative run`` is the sandboxed way).

Exit codes: 0 written / every obligation passed or vacuous, 1 an obligation failed or was
not exercised, 2 bad input (spec errors, a target that cannot be imported, a wrong flag).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, TextIO

from derivative import api
from derivative._errors import ExitCode, exit_code_for
from derivative._files import write_atomically

from ._arguments import add_examples, add_seed, add_specs, load_specs, refuse_with
from ._progress import gates

if TYPE_CHECKING:
    from derivative.api import TestOptions

HELP = "write (or run) property tests of an implementation from a requirement set"


def arguments(p: argparse.ArgumentParser) -> None:
    from derivative.api import TestOptions

    add_specs(p)
    p.add_argument(
        "--target", required=True, metavar="PATH_OR_MODULE",
        help="the implementation: a .py file, a package directory (with --module) or a "
        "module name importable from the current directory",
    )
    p.add_argument("--module", default=TestOptions.module, metavar="NAME",
                   help="the module inside a package directory given as --target")
    p.add_argument("-o", "--output", default=TestOptions.output, metavar="FILE",
                   help="write a standalone pytest module instead of running the tests")
    add_examples(p, TestOptions.examples)
    p.add_argument("--json", action="store_true",
                   help="when running: print the derivative.run/v1 obligations document")
    add_seed(p, "when running: a random seed (default: derandomised, reproducible)")
    p.add_argument("--verbose", action="store_true",
                   help="when running: interleavings also name the bytecode instructions")


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Write the module (``-o``) or run the obligations; the exit code."""
    from derivative.api import TestOptions

    _refuse_ignored(args)
    loaded = load_specs(args)
    options = TestOptions(target=args.target, module=args.module, output=args.output,
                          examples=args.examples, seed=args.seed, verbose=bool(args.verbose))
    if options.output:
        return _write(loaded, options, stdout)
    return _run(loaded, options, args.json, stdout, stderr)


def _refuse_ignored(args: argparse.Namespace) -> None:
    """Flags that this combination would silently ignore are bad input."""
    writing = args.output is not None
    refuse_with("--json", writing and args.json,
                "prints the report of a run; with -o the tests are written, not run "
                "(drop -o to run them, or --json to write them)")
    refuse_with("--seed", writing and args.seed is not None,
                "seeds a run; with -o the tests are written, not run, and the written module "
                "draws its own inputs (drop -o to run them, or --seed to write them)")
    refuse_with("--verbose", writing and args.verbose,
                "details the report of a run; with -o the tests are written, not run")
    folder = os.path.isdir(args.target)
    refuse_with("--module", args.module is not None and not folder,
                f"names the module inside a folder given as --target; {args.target} is "
                + ("a .py file, imported from its file" if args.target.endswith(".py")
                   else "a module name, imported as it is") + " (drop --module)")


def _write(loaded: api.LoadedContract, options: TestOptions, stdout: TextIO) -> int:
    assert options.output is not None
    source = api.generate_tests(loaded, options)
    write_atomically(options.output, source)
    tests = source.count("\ndef test_")
    stdout.write(f"wrote {options.output}: {tests} tests for {loaded.name}\n")
    return ExitCode.OK


def _run(loaded: api.LoadedContract, options: TestOptions, as_json: bool,
         stdout: TextIO, stderr: TextIO) -> int:
    with gates(stderr, json_output=as_json, title=f"tests {loaded.name}") as progress:
        evidence = api.run_tests(loaded, options, progress=progress)
    if as_json:
        from derivative.api import RunDocument

        document = RunDocument.model_validate(evidence.to_json()).model_dump(mode="json")
        stdout.write(json.dumps(document, indent=2, sort_keys=True) + "\n")
    else:
        stdout.write(evidence.summary() + "\n")
    return exit_code_for(evidence.status)
