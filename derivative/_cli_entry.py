"""The console script: ``--version`` answered before anything else is imported.

A shell prompt, an editor or a pre-commit hook asks ``derivative --version`` far more
often than a person reads it; answering it here, without the command table, argparse
or the error table (``derivative.cli``), keeps it at the interpreter's own start-up.
Everything else goes to ``derivative.cli.main`` unchanged, with the garbage collector
paused while the command's modules are imported (``derivative._gcpause``).
"""

from __future__ import annotations

import sys


def main() -> int:
    """Run the command line on the process's arguments; return the exit code."""
    if sys.argv[1:] == ["--version"]:
        from derivative._version import __version__

        sys.stdout.write(f"derivative {__version__}\n")
        return 0
    from derivative._gcpause import pause_for_start

    pause_for_start()  # ended by the CLI once the command's modules are imported
    from derivative.cli import main as run

    return run()
