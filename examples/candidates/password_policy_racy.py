"""A subtly wrong implementation of examples/password_policy.req.

It checks and then sets a token's "used" flag without a lock: two concurrent resets
of one token can both succeed, which breaks ``single_use``.  Sequential tests never
see it; ``derivative run`` explores thread interleavings and reports the schedule.
"""

import enum
import itertools
import re

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

    def forget(self, token):
        self._used.pop(token, None)
