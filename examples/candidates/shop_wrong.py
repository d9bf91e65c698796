"""The shop with two habits the contract rules out: 0 for an unknown item (not none),
and a receipt line returned as a list (not a tuple)."""

PRICES = {"apple": 30, "pear": 45, "plum": 12}


def price_of(item):
    return PRICES.get(item, 0)


def line_total(item, quantity):
    return [item, PRICES[item] * quantity]


def split_cents(cents):
    return divmod(cents, 100)
