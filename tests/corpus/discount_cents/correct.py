"""Correct implementation of discount_cents/spec.req."""
def discounted(price_cents, percent):
    return price_cents - price_cents * percent // 100
