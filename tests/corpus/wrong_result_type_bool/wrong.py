"""Subtly wrong: returns a bool (True/False) where an int is required."""
# expect-fail: count_vowels.ensures
def count_vowels(s):
    return any(c in "aeiou" for c in s)
