"""VAT in cents for order lines and refunds."""

VAT_PERCENT = 20


def vat_cents(amount_cents: int) -> int:
    """VAT of a line, rounded down to the cent; a refund mirrors the sale's VAT."""
    if amount_cents < 0:
        return -vat_cents(-amount_cents)
    return amount_cents * VAT_PERCENT // 100
