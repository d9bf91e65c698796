"""Subtly wrong: rounds to cents: outside the contract's tolerance."""
# expect-fail: with_vat.ensures
def with_vat(net, rate):
    return round(net * (1 + rate), 2)
