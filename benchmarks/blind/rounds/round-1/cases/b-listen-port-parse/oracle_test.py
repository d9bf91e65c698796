"""Oracle for b-listen-port-parse, written from the summary and spec.req."""

import random

from listen_port import parse_port


def refused(text):
    try:
        parse_port(text)
    except ValueError:
        return True
    return False


def test_every_port_number_in_range_is_accepted():
    for n in range(1024, 65536, 7):
        got = parse_port(str(n))
        assert type(got) is int and got == n, n
    for n in (1024, 1025, 65534, 65535):
        assert parse_port(str(n)) == n


def test_out_of_range_numbers_are_refused():
    for n in list(range(1, 1024)) + [65536, 65537, 99999, 100000, 123456789012]:
        assert refused(str(n)), n


def test_leading_zero_sign_and_space_are_refused():
    for text in ["0", "00", "08080", "01024", "+8080", "-8080", " 8080", "8080 ", "8080\n",
                 "\t8080", "8_080", "8,080", "8080.0", "0x1F90", "", " ", "80 80", "８０８０",
                 "٨٠٨٠", "8080a", "a8080", "1e4"]:
        assert refused(text), repr(text)


def test_random_strings():
    rng = random.Random(1234)
    alphabet = "0123456789+- _x."
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        ok = (len(text) > 0 and text[0] in "123456789" and all(c in "0123456789" for c in text)
              and 1024 <= int(text) <= 65535)
        if ok:
            assert parse_port(text) == int(text), text
        else:
            assert refused(text), repr(text)
