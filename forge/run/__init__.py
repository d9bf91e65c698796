"""``derivative run``: contract check, posture, one sandbox, every obligation, one document.

This is the one room that knows both the engine (``forge.testing``) and the sandbox
(``forge.sandbox``); ``SandboxCaller`` is the adapter between them.  Other rooms and the
CLI import only the names below.
"""

from __future__ import annotations

from ._caller import SandboxCaller
from ._document import RunDocument, RunStatus
from ._pipeline import RunOptions, RunReport, run_candidate

__all__ = ["RunDocument", "RunOptions", "RunReport", "RunStatus", "SandboxCaller", "run_candidate"]
