"""Oracle for b-username-reserved-names, written from the summary and spec.req."""

import random

from signup_username import is_valid_username

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIGITS = "0123456789"
RESERVED = ["admin", "root", "support", "system", "moderator"]


def reference(name):
    if not 3 <= len(name) <= 16:
        return False
    if name[0] not in LETTERS:
        return False
    if any(c not in LETTERS + DIGITS + "_" for c in name):
        return False
    return name.lower() not in RESERVED


def case_variants(word, rng, n):
    out = {word, word.upper(), word.capitalize()}
    while len(out) < n:
        out.add("".join(c.upper() if rng.random() < 0.5 else c for c in word))
    return sorted(out)


def test_reserved_names_in_any_case_are_refused():
    rng = random.Random(1234)
    for word in RESERVED:
        for variant in case_variants(word, rng, 12):
            assert is_valid_username(variant) is False, variant


def test_names_that_only_contain_a_reserved_word_are_fine():
    for name in ["admin2", "Admin_", "rootbeer", "SystemOfADown", "support_team", "moderators", "xroot"]:
        assert is_valid_username(name) is True, name


def test_length_limits():
    assert is_valid_username("ab") is False
    assert is_valid_username("abc") is True
    assert is_valid_username("A" * 16) is True
    assert is_valid_username("A" * 17) is False
    assert is_valid_username("a23456789012345x") is True
    assert is_valid_username("a234567890123456x") is False
    assert is_valid_username("") is False


def test_character_rules():
    for name in ["_root", "1abc", "ab c", "abc-d", "abc.d", "ab\u00e9c", "abc\n", " abc", "abc ", "Ada_Lovelace9"]:
        assert is_valid_username(name) is reference(name), repr(name)


def test_random_names():
    rng = random.Random(1234)
    alphabet = LETTERS + DIGITS + "_-. "
    for _ in range(3000):
        if rng.random() < 0.2:
            base = rng.choice(RESERVED)
            name = "".join(c.upper() if rng.random() < 0.5 else c for c in base)
        else:
            name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
        got = is_valid_username(name)
        assert type(got) is bool
        assert got == reference(name), repr(name)
