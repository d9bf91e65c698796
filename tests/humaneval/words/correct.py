"""Correct implementation of words/spec.req."""
def words_string(text):
    return [w for w in text.split(" ") if w]
