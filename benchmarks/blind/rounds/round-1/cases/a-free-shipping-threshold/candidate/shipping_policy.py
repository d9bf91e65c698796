"""Free-shipping policy of the EU shop."""

FREE_THRESHOLD_CENTS = 3500
FLAT_FEE_CENTS = 449


def fee_cents(subtotal_cents: int, threshold_cents: int, flat_cents: int) -> int:
    return 0 if subtotal_cents >= threshold_cents else flat_cents
