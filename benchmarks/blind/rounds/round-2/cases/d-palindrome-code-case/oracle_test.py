"""Oracle for d-palindrome-code-case, written from the summary and spec.req."""

import random

from mirror_codes import is_mirror_code


def reference(code):
    n = len(code)
    return all(code[i] == code[n - 1 - i] for i in range(n))


def test_examples():
    assert is_mirror_code("level") is True
    assert is_mirror_code("A7x7A") is True
    assert is_mirror_code("ab") is False
    assert is_mirror_code("") is True
    assert is_mirror_code("Q") is True


def test_case_matters():
    for code in ["Abba", "aA", "Aa", "abA", "Level", "leveL", "xYx" + "X", "RaceCar", "Noon", "aBcBA"]:
        assert is_mirror_code(code) is False, code
    for code in ["abba", "ABBA", "AbbA", "aBcBa", "racecar", "RaCeCaR", "a-b-a", "12321"]:
        assert is_mirror_code(code) is True, code


def test_random_mixed_case():
    rng = random.Random(1234)
    alphabet = "abAB1 -"
    for _ in range(3000):
        n = rng.randint(0, 12)
        half = "".join(rng.choice(alphabet) for _ in range(n // 2))
        mid = rng.choice(alphabet) if n % 2 else ""
        code = half + mid + half[::-1]
        if rng.random() < 0.7 and code:
            i = rng.randrange(len(code))
            code = code[:i] + code[i].swapcase() + code[i + 1:]
        got = is_mirror_code(code)
        assert type(got) is bool
        assert got == reference(code), repr(code)


def test_random_any():
    rng = random.Random(4321)
    for _ in range(2000):
        n = rng.randint(0, 40)
        code = "".join(rng.choice("aAbBzZ09éÉ") for _ in range(n))
        assert is_mirror_code(code) == reference(code), repr(code)
