"""Back-off between webhook delivery retries."""

BASE_DELAY_MS = 500
MAX_DELAY_MS = 8000
MAX_ATTEMPTS = 20


def retry_delay_ms(attempt: int) -> int:
    """Delay before retry number ``attempt`` (1-based): doubling from 500 ms, capped at 8 s."""
    return min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1))
