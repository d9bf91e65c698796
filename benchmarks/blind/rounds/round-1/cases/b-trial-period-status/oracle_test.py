"""Oracle for b-trial-period-status, written from the summary and spec.req."""

import datetime
import random

from trial_period import trial_days_left, trial_last_day, trial_state

LAUNCH = datetime.date(2020, 1, 1)
HORIZON = datetime.date(2099, 12, 31)
ONE = datetime.timedelta(days=1)


def name_of(state):
    return getattr(state, "name", state)


def expected_state(signup, today):
    n = (today - signup).days
    if n < 14:
        return "trial"
    if n < 21:
        return "grace"
    return "expired"


def test_last_day_is_day_fourteen():
    rng = random.Random(1234)
    days = [LAUNCH, HORIZON, datetime.date(2024, 2, 16), datetime.date(2026, 12, 25)]
    days += [LAUNCH + datetime.timedelta(days=rng.randint(0, (HORIZON - LAUNCH).days)) for _ in range(500)]
    for signup in days:
        got = trial_last_day(signup)
        assert got == signup + datetime.timedelta(days=13), (signup, got)
    assert trial_last_day(datetime.date(2026, 2, 20)) == datetime.date(2026, 3, 5)
    assert trial_last_day(datetime.date(2024, 2, 20)) == datetime.date(2024, 3, 4)


def test_state_for_each_day_after_signup():
    for signup in (datetime.date(2026, 2, 1), datetime.date(2024, 2, 20), LAUNCH):
        for n in range(0, 40):
            today = signup + datetime.timedelta(days=n)
            assert name_of(trial_state(signup, today)) == expected_state(signup, today), (signup, n)


def test_state_random():
    rng = random.Random(1234)
    span = (HORIZON - LAUNCH).days
    for _ in range(800):
        signup = LAUNCH + datetime.timedelta(days=rng.randint(0, span))
        today = signup + datetime.timedelta(days=rng.choice([rng.randint(0, 25), rng.randint(0, 5000)]))
        if today > HORIZON:
            continue
        assert name_of(trial_state(signup, today)) == expected_state(signup, today)


def test_state_at_horizon():
    assert name_of(trial_state(HORIZON, HORIZON)) == "trial"
    assert name_of(trial_state(HORIZON - datetime.timedelta(days=14), HORIZON)) == "grace"
    assert name_of(trial_state(HORIZON - datetime.timedelta(days=21), HORIZON)) == "expired"


def test_before_signup_is_an_error():
    rng = random.Random(1234)
    for _ in range(300):
        signup = LAUNCH + datetime.timedelta(days=rng.randint(0, 20000))
        today = signup - datetime.timedelta(days=rng.choice([1, 2, rng.randint(1, 3000)]))
        for label, fn in (("trial_state", trial_state), ("trial_days_left", trial_days_left)):
            try:
                fn(signup, today)
                assert False, (label, signup, today)
            except ValueError:
                pass


def test_days_left():
    rng = random.Random(1234)
    for _ in range(600):
        signup = LAUNCH + datetime.timedelta(days=rng.randint(0, 25000))
        n = rng.choice([rng.randint(0, 20), rng.randint(0, 3000)])
        today = signup + datetime.timedelta(days=n)
        if today > HORIZON:
            continue
        got = trial_days_left(signup, today)
        assert type(got) is int
        assert got == max(0, 14 - n), (signup, n, got)
    d = datetime.date
    assert trial_days_left(d(2026, 2, 1), d(2026, 2, 1)) == 14
    assert trial_days_left(d(2026, 2, 1), d(2026, 2, 14)) == 1
    assert trial_days_left(d(2026, 2, 1), d(2026, 2, 15)) == 0
    assert trial_days_left(HORIZON, HORIZON) == 14
