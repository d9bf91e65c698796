"""The discount percentage field of the promotions admin."""

from __future__ import annotations

import re

MAX_PERCENT = 100

_DIGITS = re.compile(r"[0-9]+")


def parse_discount_percent(text: str) -> int:
    """The percentage typed in the field: digits only, at most 100."""
    if _DIGITS.fullmatch(text) is None:
        raise ValueError(f"not a percentage: {text!r}")
    percent = int(text)
    if percent > MAX_PERCENT:
        raise ValueError(f"a discount of {percent}% is more than the price")
    return percent


def discounted_cents(price_cents: int, percent: int) -> int:
    """The price after the discount; the discount rounds down to the cent."""
    return price_cents - price_cents * percent // 100
