"""Postcode areas for delivery zones."""

from __future__ import annotations

_HIGHLANDS = frozenset({"IV", "KW", "PH", "HS", "ZE"})


def postcode_area(code: str) -> str:
    """The one or two letters before the first digit of a UK postcode."""
    area = ""
    for ch in code:
        if "0" <= ch <= "9":
            break
        area += ch
    return area


def is_highlands(area: str) -> bool:
    """Areas with the surcharge for the Highlands and Islands."""
    return area in _HIGHLANDS
