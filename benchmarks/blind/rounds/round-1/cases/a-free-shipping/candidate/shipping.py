"""Shipping fee at checkout."""

FREE_FROM_CENTS = 5000
FLAT_CENTS = 495
PER_KG_CENTS = 200
INCLUDED_KG = 5


def shipping_cents(subtotal_cents: int, weight_kg: int) -> int:
    if subtotal_cents < 0:
        raise ValueError(f"negative subtotal {subtotal_cents}")
    if subtotal_cents > FREE_FROM_CENTS:
        return 0
    extra_kg = max(0, weight_kg - INCLUDED_KG)
    return FLAT_CENTS + PER_KG_CENTS * extra_kg
