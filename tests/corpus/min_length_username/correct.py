"""Correct implementation of min_length_username/spec.req."""
import re
def valid_username(name):
    return 3 <= len(name) <= 16 and re.fullmatch(r"[a-z0-9_]*", name) is not None
