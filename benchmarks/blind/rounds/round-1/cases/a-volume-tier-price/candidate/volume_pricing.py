"""Volume pricing for printed labels."""

MAX_LINE_QUANTITY = 10000
MAX_QUANTITY_PER_ORDER = 10000

# (smallest quantity of the tier, unit price in cents), best tier first
TIERS = ((50, 850), (10, 1000), (1, 1200))


def unit_price_cents(quantity: int) -> int:
    for first, cents in TIERS:
        if quantity >= first:
            return cents
    raise ValueError(f"no tier for quantity {quantity}")


def line_total_cents(quantity: int) -> int:
    if quantity < 0:
        raise ValueError(f"negative quantity {quantity}")
    if quantity == 0:
        return 0
    return quantity * unit_price_cents(quantity)
