"""Oracle for a-upload-limits, written from the requirements only."""

import random

from upload_limits import Plan, cap_bytes, chunk_count, upload_allowed

MIB = 1048576
CAPS = {"free": 25 * MIB, "pro": 250 * MIB, "enterprise": 2048 * MIB}
CHUNK = 8 * MIB


def _plans():
    return [Plan.free, Plan.pro, Plan.enterprise]


def test_caps():
    for plan in _plans():
        got = cap_bytes(plan)
        assert type(got) is int and got == CAPS[plan.name], (plan, got)
    assert cap_bytes(Plan.free) == 26214400


def test_upload_allowed_around_each_cap():
    for plan in _plans():
        cap = CAPS[plan.name]
        for size in (1, 2, cap - 1, cap, cap + 1, cap + MIB, 10 * cap):
            got = upload_allowed(size, plan)
            assert got is (size <= cap), (plan, size, got)
        assert upload_allowed(0, plan) is False


def test_upload_allowed_examples():
    assert upload_allowed(26214400, Plan.free) is True
    assert upload_allowed(26214401, Plan.free) is False
    assert upload_allowed(26214401, Plan.pro) is True


def test_negative_sizes_raise():
    for plan in _plans():
        for size in (-1, -2, -MIB, -CAPS[plan.name], -(10**12)):
            try:
                upload_allowed(size, plan)
            except ValueError:
                pass
            else:
                assert False, (plan, size)


def test_upload_allowed_random():
    rng = random.Random(1234)
    for _ in range(2000):
        plan = rng.choice(_plans())
        size = rng.randint(0, 3 * CAPS[plan.name])
        got = upload_allowed(size, plan)
        assert got is (1 <= size <= CAPS[plan.name]), (plan, size, got)


def _check_chunks(size):
    got = chunk_count(size)
    assert type(got) is int, (size, got)
    assert got == -(-size // CHUNK), (size, got)
    assert (got - 1) * CHUNK < size <= got * CHUNK, (size, got)


def test_chunk_count_boundaries():
    assert chunk_count(0) == 0
    assert chunk_count(8388608) == 1
    assert chunk_count(8388609) == 2
    for k in range(0, 257):
        for delta in (-1, 0, 1):
            size = k * CHUNK + delta
            if 0 <= size <= CAPS["enterprise"]:
                _check_chunks(size)
    _check_chunks(CAPS["enterprise"])
    _check_chunks(1)


def test_chunk_count_random():
    rng = random.Random(1234)
    for _ in range(2000):
        _check_chunks(rng.randint(0, CAPS["enterprise"]))
