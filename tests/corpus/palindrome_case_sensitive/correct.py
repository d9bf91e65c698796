"""Correct implementation of palindrome_case_sensitive/spec.req."""


def is_palindrome(text):
    return text == text[::-1]
