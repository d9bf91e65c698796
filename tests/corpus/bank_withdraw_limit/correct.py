"""Correct implementation of bank_withdraw_limit/spec.req (the lock matters: without it
two concurrent withdrawals can both pass the check, as the explorer shows)."""
import threading


class Account:
    def __init__(self):
        self.done = 0
        self.lock = threading.Lock()

    def withdraw(self, amount):
        with self.lock:
            if self.done >= 2:
                return False
            self.done += 1
            return True
