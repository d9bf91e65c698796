"""Oracle for b-hex-colour-validate, written from the summary and spec.req."""

import random

from theme_colours import is_hex_colour, is_short_form

HEX = "0123456789abcdefABCDEF"


def reference(text):
    if len(text) not in (4, 7) or text[0] != "#":
        return False
    return all(c in HEX for c in text[1:])


def test_known_values():
    for text in ["#1a2B3c", "#abc", "#ABC", "#000", "#fff", "#FFFFFF", "#000000", "#09aF9a"]:
        assert is_hex_colour(text) is True, text
    for text in ["", "#", "#a", "#ab", "#abcd", "#abcde", "#abcdefa", "123456", "abc", "##abc",
                 "#abc ", " #abc", "#abc\n", "#12345g", "#ggg", "red", "#-12", "#12 34 5",
                 "#ａｂｃ", "#１２３", "#abc#", "0x123456", "#0x1234"]:
        assert is_hex_colour(text) is False, repr(text)


def test_random_near_misses():
    rng = random.Random(1234)
    alphabet = HEX + "#gG xX-\n"
    for _ in range(3000):
        n = rng.choice([3, 4, 5, 6, 7, 8, rng.randint(0, 24)])
        text = "".join(rng.choice(alphabet) for _ in range(n))
        if rng.random() < 0.6:
            text = "#" + text[1:] if text else "#"
        got = is_hex_colour(text)
        assert type(got) is bool
        assert got == reference(text), repr(text)


def test_short_form():
    rng = random.Random(1234)
    for _ in range(500):
        n = rng.choice([3, 6])
        colour = "#" + "".join(rng.choice(HEX) for _ in range(n))
        got = is_short_form(colour)
        assert type(got) is bool
        assert got == (n == 3), colour
