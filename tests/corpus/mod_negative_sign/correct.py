"""Correct implementation of mod_negative_sign/spec.req."""
def bucket(key, n):
    return key % n
