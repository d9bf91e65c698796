"""Oracle for e-signin-lockout-counter, written from the requirements only."""

import signin_throttle as m


def _name(value):
    return getattr(value, "name", value)


def _is_locked(failures, minutes):
    return failures >= 5 and minutes < 15


def test_outcome_all_small_inputs():
    for failures in range(0, 6):
        for minutes in range(0, 40):
            for ok in (False, True):
                got = _name(m.outcome(failures, minutes, ok))
                if _is_locked(failures, minutes):
                    want = "locked"
                else:
                    want = "accepted" if ok else "wrong_password"
                assert got == want, (failures, minutes, ok)


def test_counter_all_small_inputs():
    for failures in range(0, 6):
        for minutes in list(range(0, 40)) + [1000, 100000]:
            for ok in (False, True):
                got = m.failures_after(failures, minutes, ok)
                if _is_locked(failures, minutes):
                    want = failures
                elif ok:
                    want = 0
                elif minutes >= 15:
                    want = 1
                else:
                    want = failures + 1
                assert got == want, (failures, minutes, ok)


def test_lockout_is_not_lifted_by_the_right_password():
    # five failures a minute apart, then the owner types the right password 3 minutes later
    failures = 0
    for _ in range(5):
        assert _name(m.outcome(failures, 1, False)) == "wrong_password"
        failures = m.failures_after(failures, 1, False)
    assert failures == 5
    assert _name(m.outcome(failures, 3, True)) == "locked"
    failures = m.failures_after(failures, 3, True)
    assert failures == 5
    # still locked a minute later: the lock lasts until 15 minutes after the last failure
    assert _name(m.outcome(failures, 4, False)) == "locked"
    assert _name(m.outcome(failures, 14, True)) == "locked"
    assert _name(m.outcome(failures, 15, True)) == "accepted"
    assert m.failures_after(failures, 15, True) == 0
