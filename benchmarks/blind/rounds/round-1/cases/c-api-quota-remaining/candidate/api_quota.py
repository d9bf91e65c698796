"""Quota figures for the billing page."""

BURST_CALLS = 1000


def remaining_calls(quota, used):
    return max(0, quota - used)


def overage_calls(quota, used):
    return max(0, used - quota)
