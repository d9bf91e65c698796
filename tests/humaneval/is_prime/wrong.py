"""Subtly wrong: stops trial division one short, so squares of primes pass as prime."""
# expect-fail: is_prime.ensures
def is_prime(n):
    if n < 2:
        return False
    d = 2
    while d * d < n:
        if n % d == 0:
            return False
        d += 1
    return True
