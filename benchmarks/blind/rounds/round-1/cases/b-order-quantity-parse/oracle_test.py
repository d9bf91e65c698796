"""Oracle for b-order-quantity-parse, written from the summary and spec.req."""

import random

from order_quantity import parse_quantity

DIGITS = "0123456789"


def refused(text):
    try:
        parse_quantity(text)
    except ValueError:
        return True
    return False


def test_every_valid_quantity():
    for n in range(1, 501):
        assert parse_quantity(str(n)) == n, n
    for text, n in [("007", 7), ("01", 1), ("001", 1), ("099", 99), ("500", 500)]:
        got = parse_quantity(text)
        assert type(got) is int and got == n, text


def test_out_of_range_numbers():
    for text in ["0", "00", "000", "501", "999", "1000", "0500x"]:
        assert refused(text), text


def test_signs_spaces_and_separators_are_refused():
    for text in ["", " ", "+5", "-5", "+12", " 5", "5 ", " 12 ", "\t7", "7\n", "1_0", "1,0",
                 "1.0", "5.", "１２", "٣", "0x1", "1e2", "12a", "a12", "+", "0012", "0001"]:
        assert refused(text), repr(text)


def test_random_strings():
    rng = random.Random(1234)
    alphabet = DIGITS + "+- _.\n"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        valid = 1 <= len(text) <= 3 and all(c in DIGITS for c in text) and 1 <= int(text) <= 500
        if valid:
            assert parse_quantity(text) == int(text), text
        else:
            assert refused(text), repr(text)
