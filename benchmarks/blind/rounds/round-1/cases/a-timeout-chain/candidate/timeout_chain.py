"""Timeouts along the request path (mobile app -> gateway -> service -> database)."""

MARGIN_MS = 1000

CLIENT_TIMEOUT_MS = 15000
GATEWAY_TIMEOUT_MS = 14000
SERVICE_TIMEOUT_MS = 13000
DB_STATEMENT_TIMEOUT_MS = 9000
POOL_ACQUIRE_TIMEOUT_MS = 3000


def child_timeout(parent_ms: int) -> int:
    if parent_ms <= MARGIN_MS:
        raise ValueError(f"{parent_ms} ms leaves nothing for the layer below")
    return parent_ms - MARGIN_MS
