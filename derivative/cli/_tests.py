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
from typing import TYPE_CHECKING, TextIO

from derivative import api
from derivative._errors import ExitCode, exit_code_for
from derivative._files import write_atomically

from ._arguments import add_examples, add_seed, add_specs

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


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Write the module (``-o``) or run the obligations; the exit code."""
    from derivative.api import TestOptions

    loaded = api.load(args.specs)
    options = TestOptions(target=args.target, module=args.module, output=args.output,
                          examples=args.examples, seed=args.seed)
    if options.output:
        return _write(loaded, options, stdout)
    return _run(loaded, options, args.json, stdout)


def _write(loaded: api.LoadedContract, options: TestOptions, stdout: TextIO) -> int:
    assert options.output is not None
    source = api.generate_tests(loaded, options)
    write_atomically(options.output, source)
    tests = source.count("\ndef test_")
    stdout.write(f"wrote {options.output}: {tests} tests for {loaded.name}\n")
    return ExitCode.OK


def _run(loaded: api.LoadedContract, options: TestOptions, as_json: bool,
         stdout: TextIO) -> int:
    evidence = api.run_tests(loaded, options)
    if as_json:
        from derivative.api import RunDocument

        document = RunDocument.model_validate(evidence.to_json()).model_dump(mode="json")
        stdout.write(json.dumps(document, indent=2, sort_keys=True) + "\n")
    else:
        stdout.write(evidence.summary() + "\n")
    return exit_code_for(evidence.status)
