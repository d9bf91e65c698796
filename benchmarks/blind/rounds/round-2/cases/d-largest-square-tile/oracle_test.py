"""Oracle for d-largest-square-tile, written from the summary and spec.req."""

import random

from floor_tiles import tile_side


def reference(w, h):
    best = 1
    for d in range(1, min(w, h) + 1):
        if w % d == 0 and h % d == 0:
            best = d
    return best


def test_examples():
    assert tile_side(120, 80) == 40
    assert tile_side(7, 5) == 1
    assert tile_side(300, 300) == 300
    assert tile_side(4999, 5000) == 1


def test_non_positive_sides_are_errors():
    for w, h in [(0, 10), (10, 0), (0, 0), (-40, 80), (80, -40), (-1, -1), (-5000, 5000)]:
        try:
            tile_side(w, h)
            assert False, (w, h)
        except ValueError:
            pass


def test_small_exhaustive():
    for w in range(1, 61):
        for h in range(1, 61):
            got = tile_side(w, h)
            assert type(got) is int
            assert got == reference(w, h), (w, h)


def test_random_large():
    rng = random.Random(1234)
    for _ in range(300):
        g = rng.randint(1, 100)
        w = g * rng.randint(1, 5000 // g)
        h = g * rng.randint(1, 5000 // g)
        assert tile_side(w, h) == reference(w, h), (w, h)
    for w, h in [(5000, 5000), (5000, 2500), (4096, 5000), (1, 5000), (5000, 1)]:
        assert tile_side(w, h) == reference(w, h), (w, h)
