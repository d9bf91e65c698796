"""Subtly wrong: allows a third withdrawal (> instead of >=)."""
# expect-fail: daily_limit
import threading


class Account:
    def __init__(self):
        self.done = 0
        self.lock = threading.Lock()

    def withdraw(self, amount):
        with self.lock:
            if self.done > 2:
                return False
            self.done += 1
            return True
