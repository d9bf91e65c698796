"""The quantity field of the bulk-order form."""

from __future__ import annotations

MAX_QUANTITY = 500
MAX_DIGITS = 3


def parse_quantity(text: str) -> int:
    """The quantity typed in the form: up to three digits, 1 to 500."""
    if not text or len(text) > MAX_DIGITS:
        raise ValueError(f"a quantity has 1 to {MAX_DIGITS} digits: {text!r}")
    try:
        quantity = int(text)
    except ValueError:
        raise ValueError(f"not a quantity: {text!r}") from None
    if not 1 <= quantity <= MAX_QUANTITY:
        raise ValueError(f"quantity {quantity} is outside 1..{MAX_QUANTITY}")
    return quantity
