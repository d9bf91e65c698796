"""Oracle for d-rotate-oncall-rota, written from the summary and spec.req."""

import random

from oncall_rota import rotate_rota


def reference(rota, weeks):
    out = list(rota)
    for _ in range(weeks):
        if out:
            out = out[1:] + out[:1]
    return out


def test_examples():
    assert rotate_rota([1, 2, 3, 4], 1) == [2, 3, 4, 1]
    assert rotate_rota([1, 2, 3], 3) == [1, 2, 3]
    assert rotate_rota([7, 8], 5) == [8, 7]
    assert rotate_rota([], 2) == []
    assert rotate_rota([], 0) == []


def test_negative_weeks_is_an_error():
    for rota in [[4, 5], [], [1]]:
        for weeks in [-1, -2, -520]:
            try:
                rotate_rota(list(rota), weeks)
                assert False, (rota, weeks)
            except ValueError:
                pass


def test_empty_rota_any_weeks():
    for weeks in range(0, 521):
        assert rotate_rota([], weeks) == []


def test_random():
    rng = random.Random(1234)
    for _ in range(3000):
        n = rng.randint(0, 40)
        rota = [rng.randint(-5, 100) for _ in range(n)]
        weeks = rng.choice([0, 1, n, n + 1, rng.randint(0, 520)])
        got = rotate_rota(list(rota), weeks)
        assert type(got) is list
        assert got == reference(rota, weeks), (rota, weeks)
