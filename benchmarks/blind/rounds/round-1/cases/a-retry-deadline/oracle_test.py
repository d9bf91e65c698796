"""Oracle for a-retry-deadline, written from the requirements only."""

import random

from retry_deadline import BudgetExhausted, next_attempt_timeout

MIN_ATTEMPT_MS = 100


def _check(budget, elapsed, per_attempt):
    remaining = budget - elapsed
    if remaining < MIN_ATTEMPT_MS:
        try:
            next_attempt_timeout(budget, elapsed, per_attempt)
        except BudgetExhausted:
            return
        assert False, ("expected BudgetExhausted", budget, elapsed, per_attempt)
    got = next_attempt_timeout(budget, elapsed, per_attempt)
    assert type(got) is int, (budget, elapsed, per_attempt, got)
    assert got == min(per_attempt, remaining), (budget, elapsed, per_attempt, got)
    assert elapsed + got <= budget
    assert got <= per_attempt
    assert got >= MIN_ATTEMPT_MS


def test_examples():
    assert next_attempt_timeout(30000, 0, 10000) == 10000
    assert next_attempt_timeout(30000, 25000, 10000) == 5000
    assert next_attempt_timeout(30000, 29900, 10000) == 100
    try:
        next_attempt_timeout(30000, 29950, 10000)
    except BudgetExhausted:
        pass
    else:
        assert False


def test_exception_is_not_a_builtin_catch_all():
    # the declared exception is the module's own class
    assert isinstance(BudgetExhausted, type) and issubclass(BudgetExhausted, Exception)


def test_around_the_minimum():
    for budget in (100, 101, 250, 1000, 30000, 600000):
        for per_attempt in sorted({100, budget // 2 if budget // 2 >= 100 else 100, budget}):
            for left in (-5000, -1, 0, 1, 98, 99, 100, 101, 102, per_attempt - 1,
                         per_attempt, per_attempt + 1, budget):
                elapsed = budget - left
                if elapsed >= 0:
                    _check(budget, elapsed, per_attempt)


def test_past_the_deadline_raises():
    for elapsed in (30000, 30001, 45000, 10**9):
        _check(30000, elapsed, 10000)


def test_random():
    rng = random.Random(1234)
    for _ in range(3000):
        budget = rng.randint(100, 600000)
        per_attempt = rng.randint(100, budget)
        elapsed = rng.choice([rng.randint(0, budget + 1000), budget - rng.randint(-50, 300)])
        if elapsed < 0:
            elapsed = 0
        _check(budget, elapsed, per_attempt)
