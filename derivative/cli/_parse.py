"""``derivative parse SPEC... [--json]``: what was understood of a requirement set.

Exit codes: 0 parsed, 2 any problem with the input (raised, for ``main`` to render).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from typing import TextIO

from derivative import api
from derivative._errors import ExitCode
from derivative._jsonout import dumps
from derivative._printer import to_source

from ._arguments import add_specs, load_specs

HELP = "parse and type-check a requirement set"


def arguments(p: argparse.ArgumentParser) -> None:
    add_specs(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="print the derivative.contract/v1 document instead of the summary",
    )


def _counts(kinds: Sequence[str]) -> str:
    counted = Counter(kinds)
    return ", ".join(f"{n} {kind}" for kind, n in counted.items())


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows as text columns separated by two spaces (the last column is not padded)."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join([*(cell.ljust(w) for cell, w in zip(r, widths, strict=False)), r[-1]]).rstrip()
        for r in rows
    ]


def _clause(expr: str, exception: str | None, kind: str) -> str:
    if exception is None:
        return expr
    if kind == "raises":
        return f"raises {exception} when {expr}"
    return f"{expr} raises {exception}"


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Parse and type-check a requirement set; show what was understood."""
    loaded = load_specs(args)
    if args.json:
        # Indented to the fields of each declaration and obligation; a syntax tree is on
        # one line (derivative._jsonout: the pure-Python indenting encoder was a third of
        # the command on large sets).
        stdout.write(dumps(api.contract_json(loaded)) + "\n")
        return ExitCode.OK
    # The summary reads the contract itself: validating the whole published document
    # (pydantic) only to print a table would cost more than the parse.
    c = loaded.contract
    lines = [f"spec {c.name} version {c.version}"]
    if c.description:
        lines.append(f'"{c.description}"')
    lines.append(f"identity      sha256:{loaded.identity}")
    lines.append("files         " + ", ".join(f.path for f in c.files))
    decl_kinds = [d.kind for d in c.declarations]
    lines.append(
        f"declarations  {len(decl_kinds)}" + (f" ({_counts(decl_kinds)})" if decl_kinds else "")
    )
    ob_kinds = [o.kind for o in c.obligations]
    lines.append(f"obligations   {len(ob_kinds)}" + (f" ({_counts(ob_kinds)})" if ob_kinds else ""))
    for block in loaded.timed:
        lines.append(
            f"timed         {block.name}: {len(block.inputs())} inputs, "
            f"{len(block.outputs())} outputs, {len(block.modes)} modes, "
            f"{len(block.requirements)} requirements"
        )
    rows = [
        (
            o.id,
            f"{o.file}:{o.line}",
            o.kind,
            o.owner or "-",
            _clause(to_source(o.expr), o.exception, o.kind),
        )
        for o in c.obligations
    ]
    if rows:
        lines.append("")
        lines.extend(_table(rows))
    stdout.write("\n".join(lines) + "\n")
    return ExitCode.OK
