"""Oracle for c-reset-token-expiry-boundary, written from the requirements only."""

import random

from reset_token_status import TokenStatus, token_status

TTL = 900


def _name(value):
    return value.name if hasattr(value, "name") else value


def _expected(issued_at, now, used, revoked):
    if revoked:
        return "revoked"
    if used:
        return "used"
    return "expired" if now - issued_at >= TTL else "valid"


def test_exact_lifetime_boundary():
    for issued in (0, 1, 1000, 86_400, 1_700_000_000):
        for age in range(0, 2000):
            want = "valid" if age < 900 else "expired"
            assert _name(token_status(issued, issued + age, False, False)) == want, (issued, age)


def test_expires_at_exactly_900_seconds():
    assert _name(token_status(0, 899, False, False)) == "valid"
    assert _name(token_status(0, 900, False, False)) == "expired"
    assert _name(token_status(500, 1400, False, False)) == "expired"


def test_precedence_revoked_then_used_then_expiry():
    rng = random.Random(1234)
    for _ in range(2000):
        issued = rng.randint(0, 10**9)
        now = issued + rng.choice([0, 1, 899, 900, 901, rng.randint(0, 10**6)])
        used = rng.random() < 0.5
        revoked = rng.random() < 0.5
        got = _name(token_status(issued, now, used, revoked))
        assert got == _expected(issued, now, used, revoked), (issued, now, used, revoked, got)


def test_clock_going_backwards_is_an_error():
    for issued, now in ((1000, 999), (1, 0), (10**9, 0), (900, 899)):
        for used in (False, True):
            for revoked in (False, True):
                try:
                    token_status(issued, now, used, revoked)
                    assert False, (issued, now, used, revoked)
                except ValueError:
                    pass
