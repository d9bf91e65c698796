"""Oracle for d-peak-memory-so-far, written from the summary and spec.req."""

import random

from memory_peaks import peak_so_far


def reference(samples):
    out = []
    for i in range(len(samples)):
        out.append(max(samples[: i + 1]))
    return out


def test_examples():
    assert peak_so_far([300, 280, 512, 400, 512, 640]) == [300, 300, 512, 512, 512, 640]
    assert peak_so_far([]) == []
    assert peak_so_far([-5, -9]) == [-5, -5]


def test_random():
    rng = random.Random(1234)
    for _ in range(3000):
        n = rng.randint(0, 60)
        lo, hi = rng.choice([(-3, 3), (0, 4096), (-10**12, 10**12)])
        samples = [rng.randint(lo, hi) for _ in range(n)]
        got = peak_so_far(list(samples))
        assert type(got) is list
        assert all(type(v) is int for v in got)
        assert got == reference(samples), samples
