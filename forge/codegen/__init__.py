"""Standalone pytest modules written from a contract (``derivative tests -o``).

A generated module needs nothing of derivative at run time: the runtime it carries is the
real module ``_runtime.py``, copied in as text.  Other rooms import only the names below.
"""

from __future__ import annotations

from ._generate import generate_module, relative_target

__all__ = ["generate_module", "relative_target"]
