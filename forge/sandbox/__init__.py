"""Sandboxes: lifecycle, the framed channel, receipts, the process and Docker backends,
the offline image build and the doctor.

The code that runs *inside* a sandbox lives in ``forge.inside`` and is staged as files,
never imported here.  Other rooms import only the names below.
"""

from __future__ import annotations

from ._channel import ExploreBatch, SetupRef, WireOutcome
from ._doctor import diagnose
from ._image import DEFAULT_TAG, build_image
from ._receipts import RunReceipt, candidate_digest
from ._sandbox import BackendName, Launcher, Limits, Sandbox, open_sandbox

__all__ = [
    "DEFAULT_TAG",
    "BackendName",
    "ExploreBatch",
    "Launcher",
    "Limits",
    "RunReceipt",
    "Sandbox",
    "SetupRef",
    "WireOutcome",
    "build_image",
    "candidate_digest",
    "diagnose",
    "open_sandbox",
]
