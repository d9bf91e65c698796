"""The static posture validator: what a candidate's source may do before it ever runs.

Policies are data (``policies/*.json``); the validator holds the mechanisms.  Other rooms
import only the names below.
"""

from __future__ import annotations

from ._model import PostureVerdict
from ._policy import DEFAULT_POLICY, Policy, PolicyFile
from ._validate import available_policies, validate_path

__all__ = [
    "DEFAULT_POLICY",
    "Policy",
    "PolicyFile",
    "PostureVerdict",
    "available_policies",
    "validate_path",
]
