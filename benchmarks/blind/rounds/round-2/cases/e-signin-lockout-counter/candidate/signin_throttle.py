"""Sign-in throttling of the customer portal."""

import enum

MAX_FAILURES = 5
QUIET_MINUTES = 15


class Attempt(enum.Enum):
    accepted = "accepted"
    wrong_password = "wrong_password"
    locked = "locked"


def _locked(failures, minutes_since_last_failure):
    return failures >= MAX_FAILURES and minutes_since_last_failure < QUIET_MINUTES


def outcome(failures, minutes_since_last_failure, password_ok):
    if _locked(failures, minutes_since_last_failure):
        return Attempt.locked
    return Attempt.accepted if password_ok else Attempt.wrong_password


def failures_after(failures, minutes_since_last_failure, password_ok):
    if password_ok:
        return 0
    if minutes_since_last_failure >= QUIET_MINUTES:
        return 1
    if _locked(failures, minutes_since_last_failure):
        return failures
    return failures + 1
