"""Subtly wrong: treats a length of one as prime."""
# expect-fail: prime_length.ensures
def prime_length(text):
    n = len(text)
    return n >= 1 and all(n % d for d in range(2, n))
