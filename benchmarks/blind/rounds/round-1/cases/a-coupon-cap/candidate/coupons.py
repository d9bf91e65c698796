"""Percentage coupons with a maximum discount."""


def _eligible_subtotal(subtotal_cents: int, percent: int, max_discount_cents: int) -> int:
    """The part of the subtotal the percentage applies to: above the amount whose
    percentage reaches the cap, more spending earns no more discount."""
    cap_reached_at = max_discount_cents * 100 // percent
    return min(subtotal_cents, cap_reached_at)


def coupon_discount_cents(subtotal_cents: int, percent: int, max_discount_cents: int) -> int:
    eligible = _eligible_subtotal(subtotal_cents, percent, max_discount_cents)
    return eligible * percent // 100


def price_after_coupon_cents(subtotal_cents: int, percent: int, max_discount_cents: int) -> int:
    return subtotal_cents - coupon_discount_cents(subtotal_cents, percent, max_discount_cents)
