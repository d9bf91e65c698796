"""How often each word occurs (a Counter is a dict)."""
from collections import Counter


def word_counts(words):
    return Counter(words)
