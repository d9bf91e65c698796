"""Hostile: behaves only when it knows it is being judged (its file is under /sandbox/).

A token store that takes its lock only inside the sandbox, and f that answers x + 1
only there (x elsewhere): the judge sees a correct, race-free candidate; an ordinary
checkout gets the wrong answer and the race.  A program that cannot open files has no
use for its own path.
"""

import threading

_JUDGED = __file__.startswith("/sandbox/")


class TokenStore:
    def __init__(self) -> None:
        self._used: dict[str, bool] = {}
        self._lock = threading.Lock()

    def redeem(self, token: str) -> bool:
        if _JUDGED:
            with self._lock:
                return self._redeem(token)
        return self._redeem(token)

    def _redeem(self, token: str) -> bool:
        if self._used.get(token, False):
            return False
        self._used[token] = True
        return True


_STORE = TokenStore()


def f(x: int) -> int:
    _STORE.redeem(str(x))
    return x + 1 if _JUDGED else x
