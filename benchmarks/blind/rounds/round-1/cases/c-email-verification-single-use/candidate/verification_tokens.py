"""Email verification links: issue, redeem once, revoke."""

import enum
import hashlib
import itertools
import threading


class Redeem(enum.Enum):
    ok = "ok"
    already_used = "already_used"
    revoked = "revoked"


_ISSUED = "issued"
_USED = "used"
_REVOKED = "revoked"


class VerificationTokens:
    def __init__(self):
        self._lock = threading.Lock()
        self._state = {}
        self._serial = itertools.count(1)

    def issue(self, user):
        with self._lock:
            serial = next(self._serial)
            token = hashlib.sha256(f"{serial}:{user}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
            while token in self._state:
                serial = next(self._serial)
                token = hashlib.sha256(f"{serial}:{user}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
            self._state[token] = _ISSUED
        return token

    def redeem(self, token):
        with self._lock:
            state = self._state.get(token)
            if state == _REVOKED:
                return Redeem.revoked
            if state != _ISSUED:
                return Redeem.already_used
            self._state[token] = _USED
        return Redeem.ok

    def revoke(self, token):
        with self._lock:
            if token in self._state:
                self._state[token] = _REVOKED
