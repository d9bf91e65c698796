"""Subtly wrong: rounds the discount half to even instead of flooring it."""
# expect-fail: discounted.ensures
def discounted(price_cents, percent):
    return price_cents - round(price_cents * percent / 100)
