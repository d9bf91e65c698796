"""What runs inside the sandbox: the stdlib-only worker and the interleaving explorer.

These files import nothing of the project; the sandbox room stages them by path
(``WORKER_SOURCE``, ``EXPLORER_SOURCE``) and runs them as scripts.  The testing room also
runs the explorer in-process (``explorer``) for unsandboxed runs.
"""

from __future__ import annotations

from pathlib import Path

from . import _explore as explorer

_HERE = Path(__file__).resolve().parent
WORKER_SOURCE = _HERE / "_worker.py"
"""The worker script, staged into every sandbox."""
EXPLORER_SOURCE = _HERE / "_explore.py"
"""The explorer, staged beside the worker and loaded by path when first needed."""

__all__ = ["EXPLORER_SOURCE", "WORKER_SOURCE", "explorer"]
