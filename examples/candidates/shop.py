"""The shop of examples/shop.req: a price table, receipt lines and cents split."""

PRICES = {"apple": 30, "pear": 45, "plum": 12}


def price_of(item):
    return PRICES.get(item)


def line_total(item, quantity):
    return (item, PRICES[item] * quantity)


def split_cents(cents):
    return divmod(cents, 100)
