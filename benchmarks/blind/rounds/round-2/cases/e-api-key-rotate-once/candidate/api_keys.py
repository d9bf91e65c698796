"""API keys of the partner portal, with single rotation."""

import enum
import secrets
import threading


class Rotation(enum.Enum):
    rotated = "rotated"
    already_rotated = "already_rotated"
    revoked = "revoked"


class ApiKeys:
    def __init__(self):
        self._lock = threading.Lock()
        self._owner = {}
        self._successor = {}
        self._revoked = set()

    def _mint(self, owner):
        while True:
            key = "ak_" + secrets.token_hex(16)
            if key not in self._owner:
                self._owner[key] = owner
                return key

    def create(self, owner):
        with self._lock:
            return self._mint(owner)

    def rotate(self, key):
        with self._lock:
            if key in self._revoked:
                return Rotation.revoked
            if key in self._successor:
                return Rotation.already_rotated
            self._successor[key] = self._mint(self._owner.get(key, ""))
            return Rotation.rotated

    def successor(self, key):
        with self._lock:
            return self._successor.get(key, "")

    def is_live(self, key):
        with self._lock:
            return key in self._owner and key not in self._successor and key not in self._revoked

    def revoke(self, key):
        with self._lock:
            self._revoked.add(key)
