"""Username rules of the sign-up form."""

from __future__ import annotations

import re

MIN_LENGTH = 3
MAX_LENGTH = 16

_USERNAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")

# As listed by trust-and-safety; compared without regard to case.
_RESERVED = frozenset(name.lower() for name in ("Admin", "Root", "Support", "System", "Moderator"))


def is_valid_username(name: str) -> bool:
    """Whether `name` may be registered."""
    if not MIN_LENGTH <= len(name) <= MAX_LENGTH:
        return False
    if _USERNAME.fullmatch(name) is None:
        return False
    return name not in _RESERVED
