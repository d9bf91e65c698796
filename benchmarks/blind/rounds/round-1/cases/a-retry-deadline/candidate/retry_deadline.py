"""Per-attempt timeouts for the HTTP client's retry loop."""

MIN_ATTEMPT_MS = 100

CONNECT_TIMEOUT_MS = 500
READ_TIMEOUT_MS = 5000
REQUEST_TIMEOUT_MS = 10000
LB_IDLE_TIMEOUT_MS = 60000


class BudgetExhausted(Exception):
    """Too little of the request's budget is left to start another attempt."""


def next_attempt_timeout(budget_ms: int, elapsed_ms: int, per_attempt_ms: int) -> int:
    remaining = budget_ms - elapsed_ms
    if remaining < MIN_ATTEMPT_MS:
        raise BudgetExhausted(f"{remaining} ms left of {budget_ms} ms")
    return min(per_attempt_ms, remaining)
