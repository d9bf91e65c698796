"""Correct implementation of wrong_result_type_bool/spec.req."""
def count_vowels(s):
    return sum(1 for c in s if c in "aeiou")
