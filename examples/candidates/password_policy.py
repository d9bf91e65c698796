"""A correct implementation of examples/password_policy.req.

Try it with ``derivative run examples/password_policy.req --candidate
examples/candidates/password_policy.py``; its sibling ``password_policy_racy.py``
drops the lock and fails the ``single_use`` invariant under concurrency.
"""

import enum
import itertools
import re
import threading

MIN_LENGTH = 12


class Outcome(enum.Enum):
    ok = "ok"
    rejected = "rejected"
    expired = "expired"


def is_strong(password):
    return len(password) >= MIN_LENGTH


def parse_minutes(text):
    if not re.fullmatch(r"[0-9]+", text):
        raise ValueError(f"not a number of minutes: {text!r}")
    return int(text)


class TokenStore:
    def __init__(self):
        self._used = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def issue(self, user):
        token = f"{user}-{next(self._ids)}"
        with self._lock:
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

    def forget(self, token):
        with self._lock:
            self._used.pop(token, None)
