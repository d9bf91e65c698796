"""Subtly wrong: compares case-insensitively, so "Aa" counts as a palindrome."""
# expect-fail: is_palindrome.ensures


def is_palindrome(text):
    return text.lower() == text[::-1].lower()
