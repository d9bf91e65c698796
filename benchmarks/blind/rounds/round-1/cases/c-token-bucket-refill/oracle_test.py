"""Oracle for c-token-bucket-refill, written from the requirements only."""

import random

from token_bucket import RateLimited, refill, retry_after_ms, take

CAPACITY = 10
REFILL_MS = 200


def test_refill_whole_tokens_only():
    for tokens in range(0, CAPACITY + 1):
        for elapsed in range(0, 2600):
            want = min(CAPACITY, tokens + elapsed // REFILL_MS)
            assert refill(tokens, elapsed) == want, (tokens, elapsed)


def test_refill_long_idle_and_huge_gaps():
    rng = random.Random(1234)
    for _ in range(1000):
        tokens = rng.randint(0, CAPACITY)
        elapsed = rng.randint(0, 10**12)
        assert refill(tokens, elapsed) == min(CAPACITY, tokens + elapsed // REFILL_MS)


def test_take_within_budget():
    for tokens in range(0, CAPACITY + 1):
        for cost in range(1, CAPACITY + 1):
            if cost > tokens:
                try:
                    take(tokens, cost)
                    assert False, (tokens, cost)
                except RateLimited:
                    pass
            else:
                assert take(tokens, cost) == tokens - cost


def test_rate_limited_is_an_exception():
    assert issubclass(RateLimited, Exception)


def test_retry_after():
    for tokens in range(0, CAPACITY + 1):
        for cost in range(1, CAPACITY + 1):
            want = (cost - tokens) * REFILL_MS if cost > tokens else 0
            assert retry_after_ms(tokens, cost) == want, (tokens, cost)


def test_waiting_retry_after_is_enough():
    for tokens in range(0, CAPACITY + 1):
        for cost in range(1, CAPACITY + 1):
            wait = retry_after_ms(tokens, cost)
            after = refill(tokens, wait)
            assert take(after, cost) == after - cost
            if wait > 0:
                assert refill(tokens, wait - 1) < cost
