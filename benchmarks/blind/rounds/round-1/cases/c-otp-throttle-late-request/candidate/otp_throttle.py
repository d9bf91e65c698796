"""Per-number throttle for one-time-password SMS (fixed one-minute windows)."""

import threading

PER_MINUTE = 3
PER_DAY = 10


class OtpThrottle:
    """One instance per phone number and day."""

    def __init__(self):
        self._lock = threading.Lock()
        self._window = None
        self._in_window = 0
        self._today = 0

    def request_code(self, minute):
        with self._lock:
            if self._today >= PER_DAY:
                return False
            if minute != self._window:
                # a new window starts: its counter starts from zero
                self._window = minute
                self._in_window = 0
            if self._in_window >= PER_MINUTE:
                return False
            self._in_window += 1
            self._today += 1
            return True

    def codes_today(self):
        with self._lock:
            return self._today
