"""Subtly wrong: check-then-set without a lock: two concurrent resets of one token both succeed."""
# expect-fail: single_use
import enum
import itertools

class Outcome(enum.Enum):
    ok = "ok"
    rejected = "rejected"
    expired = "expired"

MIN_LENGTH = 12

class TokenStore:
    def __init__(self):
        self._used = {}
        self._ids = itertools.count(1)

    def issue(self, user):
        token = f"{user}-{next(self._ids)}"
        self._used[token] = False
        return token

    def reset(self, token, password):
        if len(password) == 0:
            raise ValueError("empty password")
        if len(password) < MIN_LENGTH:
            return Outcome.rejected
        if self._used.get(token, True):
            return Outcome.expired
        self._used[token] = True
        return Outcome.ok
