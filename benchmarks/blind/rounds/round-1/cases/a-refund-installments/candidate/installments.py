"""Split a charge or a refund into installments that add up exactly."""

MAX_INSTALLMENTS = 24


def installment_cents(total_cents: int, parts: int, index: int) -> int:
    """Installment ``index`` (0-based) of ``parts``: an even share of the amount, the
    leftover cents going one each to the first installments."""
    base = int(total_cents / parts)
    leftover = total_cents - base * parts
    return base + (1 if index < leftover else 0)
