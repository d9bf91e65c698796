"""Correct implementation of password_strength/spec.req."""
MIN_LENGTH = 12
def is_strong(password):
    return len(password) >= MIN_LENGTH
