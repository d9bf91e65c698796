"""Gift codes: create a code worth an amount, credit the first account that claims it."""

import enum
import hashlib
import itertools
import threading


class Claim(enum.Enum):
    credited = "credited"
    already_claimed = "already_claimed"


class GiftCodes:
    def __init__(self):
        self._lock = threading.Lock()
        self._serial = itertools.count(1)
        self._amounts = {}
        self._claimed_by = {}
        self._balances = {}

    def create(self, amount_cents):
        with self._lock:
            while True:
                digest = hashlib.sha256(str(next(self._serial)).encode("ascii")).hexdigest()
                code = "GC-%08d" % (int(digest, 16) % 100_000_000)
                if code not in self._amounts:
                    break
            self._amounts[code] = amount_cents
        return code

    def claim(self, code, account):
        if code in self._claimed_by:
            return Claim.already_claimed
        amount = self._amounts[code]
        self._claimed_by[code] = account
        with self._lock:
            self._balances[account] = self._balances.get(account, 0) + amount
        return Claim.credited

    def balance(self, account):
        with self._lock:
            return self._balances.get(account, 0)
