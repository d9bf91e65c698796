"""Validation of colours typed into the theme editor."""

from __future__ import annotations

import re

_HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


def is_hex_colour(text: str) -> bool:
    """True for '#' and 3 or 6 hex digits, either case."""
    return _HEX_COLOUR.fullmatch(text) is not None


def is_short_form(colour: str) -> bool:
    """True for the 3-digit form of a valid colour."""
    return len(colour) == 4
