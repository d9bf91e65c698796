"""Proration of mid-cycle plan changes."""


def prorated_cents(old_price_cents, new_price_cents, days_left, cycle_days):
    """Charge (positive) or credit (negative) for the rest of the cycle, in cents."""
    if not 0 <= days_left <= cycle_days:
        raise ValueError(f"days_left {days_left} outside the cycle of {cycle_days} days")
    difference = new_price_cents - old_price_cents
    # Round the amount down to the cent so the customer is never overcharged.
    amount = abs(difference) * days_left // cycle_days
    return amount if difference >= 0 else -amount


def invoice_line(amount_cents):
    sign = "-" if amount_cents < 0 else ""
    whole, cents = divmod(abs(amount_cents), 100)
    return f"{sign}{whole}.{cents:02d}"
