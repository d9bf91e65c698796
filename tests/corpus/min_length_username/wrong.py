"""Subtly wrong: rejects names of exactly 16 characters."""
# expect-fail: valid_username.ensures
import re
def valid_username(name):
    return 3 <= len(name) < 16 and re.fullmatch(r"[a-z0-9_]*", name) is not None
