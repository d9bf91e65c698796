"""Token-bucket arithmetic for the API gateway."""

CAPACITY = 10
REFILL_MS = 200


class RateLimited(Exception):
    """The bucket does not hold enough tokens for this request."""

    def __init__(self, tokens, cost):
        super().__init__(f"request costs {cost} token(s), bucket holds {tokens}")
        self.tokens = tokens
        self.cost = cost


def refill(tokens, elapsed_ms):
    earned = elapsed_ms // REFILL_MS
    return min(CAPACITY, tokens + earned)


def take(tokens, cost):
    if cost > tokens:
        raise RateLimited(tokens, cost)
    return tokens - cost


def retry_after_ms(tokens, cost):
    missing = cost - tokens
    if missing <= 0:
        return 0
    return missing * REFILL_MS
