"""Correct implementation of strlen/spec.req."""
def strlen(text):
    return len(text)
