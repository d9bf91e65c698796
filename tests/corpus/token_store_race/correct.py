"""Correct implementation of token_store_race/spec.req."""
import enum
import itertools
import threading

class Outcome(enum.Enum):
    ok = "ok"
    rejected = "rejected"
    expired = "expired"

MIN_LENGTH = 12

class TokenStore:
    def __init__(self):
        self._used = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def issue(self, user):
        token = f"{user}-{next(self._ids)}"
        self._used[token] = False
        return token

    def reset(self, token, password):
        if len(password) == 0:
            raise ValueError("empty password")
        if len(password) < MIN_LENGTH:
            return Outcome.rejected
        with self._lock:
            if self._used.get(token, True):
                return Outcome.expired
            self._used[token] = True
        return Outcome.ok
