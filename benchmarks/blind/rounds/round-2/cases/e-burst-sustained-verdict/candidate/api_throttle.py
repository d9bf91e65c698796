"""Burst and sustained throttle of the public search API."""

import enum

BURST = 10
SUSTAINED = 120
WINDOW_S = 60


class Verdict(enum.Enum):
    allow = "allow"
    burst_limited = "burst_limited"
    sustained_limited = "sustained_limited"


def verdict(in_last_second, in_last_minute):
    if in_last_minute >= SUSTAINED:
        return Verdict.sustained_limited
    if in_last_second >= BURST:
        return Verdict.burst_limited
    return Verdict.allow


def retry_after_s(in_last_second, in_last_minute, oldest_age_s):
    v = verdict(in_last_second, in_last_minute)
    if v is Verdict.sustained_limited:
        return WINDOW_S - oldest_age_s
    if v is Verdict.burst_limited:
        return 1
    return 0


def remaining(in_last_minute):
    return max(0, SUSTAINED - in_last_minute)
