"""Subtly wrong: exactly 12 characters is rejected."""
# expect-fail: S1
MIN_LENGTH = 12
def is_strong(password):
    return len(password) > MIN_LENGTH
