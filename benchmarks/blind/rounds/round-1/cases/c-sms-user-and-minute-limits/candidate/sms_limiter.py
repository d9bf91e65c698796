"""Daily per-user and per-minute gateway limits for outbound SMS."""

import threading
from collections import Counter

USER_DAILY_LIMIT = 5
GATEWAY_PER_MINUTE = 3


class SmsLimiter:
    """One instance per calendar day."""

    def __init__(self):
        self._lock = threading.Lock()
        self._sent_by_user = Counter()
        self._sent_in_minute = Counter()

    def try_send(self, user, minute):
        with self._lock:
            if self._sent_by_user[user] >= USER_DAILY_LIMIT:
                return False
            if self._sent_in_minute[minute] >= GATEWAY_PER_MINUTE:
                return False
            self._sent_by_user[user] += 1
            self._sent_in_minute[minute] += 1
            return True

    def remaining(self, user):
        with self._lock:
            return USER_DAILY_LIMIT - self._sent_by_user[user]
